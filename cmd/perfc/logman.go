package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/internal/tool/logman"
	"github.com/perfcounters/perfcounters/state"
)

func logmanCommand() command {
	return command{
		name:  "logman",
		usage: "create|update counter|alert NAME [options] | query [NAME] | start|stop|delete NAME | import|export NAME -xml FILE",
		short: "create, query, start, stop and delete performance counter and alert Data Collector Sets",
		run:   runLogman,
		subs:  []command{logmanServiceCommand()},
		help: helpScreen{
			about: "Logman manages performance counter Data Collector Sets: definitions of\n" +
				"what to record, how often and into which log. A user's sets are kept in\n" +
				"the user's state directory; root's are the system sets, which every user\n" +
				"may query. A started set records in the background, in a process of its\n" +
				"own that outlives the terminal; the collector service (perfc logman\n" +
				"service, run by systemd) starts sets at boot and on their schedules.",
			usage: []string{
				"perfc logman create counter|alert <[-n] name> [options]",
				"perfc logman update counter|alert <[-n] name> [options]",
				"perfc logman query [name]",
				"perfc logman start|stop|delete <[-n] name>",
				"perfc logman import|export <[-n] name> -xml <file>",
			},
			params: [][2]string{
				{"create counter", "Create a counter Data Collector Set."},
				{"create alert", "Create an alert Data Collector Set: thresholds judged at each sample."},
				{"update counter|alert", "Change the options given of an existing set."},
				{"query", "List the Data Collector Sets, or show one in detail."},
				{"start, stop", "Start or stop a set's collection."},
				{"delete", "Delete a set."},
				{"import, export", "Read or write a set as the DataCollectorSet XML of Windows' logman."},
			},
			notes: "Options marked with -- in their text are negated with a doubled dash:\n" +
				"--v removes versioning, --max the size limit, --cnf new files, --a, --ow,\n" +
				"--r, --rc, --boot, --el, --tn, --targ, --rdcs, --onchange and --arl what\n" +
				"they switch on, --retain the retention limits, --u the run-as user.\n" +
				"Times of -b and -e are local. Binary logs are perfc's own format and end\n" +
				"in .plog. -retain deletes only the set's own closed logs (the names its -v\n" +
				"or -cnf makes in its directory), never links or other files, and says what\n" +
				"it deleted in perfc logman query NAME. Commands (-tn, -rc) run without a\n" +
				"shell, as the set's owner, killed after a minute (PERFC_ACTION_TIMEOUT);\n" +
				"alert events (-el) go to syslog (PERFC_SYSLOG=NETWORK:ADDRESS for another\n" +
				"socket). Event trace (trace), configuration (cfg) and API tracing (api)\n" +
				"sets are not part of perfc.",
			examples: [][2]string{
				{"Record CPU time every 15 seconds:", `perfc logman create counter perf_log -c "\Processor(_Total)\% Processor Time"`},
				{"Ten-MB files, a new one every hour, numbered:", "perfc logman create counter mem_log -c \"\\Memory\\Available MBytes\" -max 10 -cnf 01:00:00 -v nnnnnn"},
				{"Change the interval and format, versioned by date:", "perfc logman update counter perf_log -si 10 -f csv -v mmddhhmm"},
				{"A new file every hour, keeping a week of them and 1 GB free:", "perfc logman update counter mem_log -cnf 01:00:00 -v nnnnnn -retain 7d,free=1GB"},
				{"One log of three computers (web1 and db7 in the hosts file):", `perfc logman create counter fleet -s web1 -c '\Memory\Available Bytes' '\\db7\Memory\Available Bytes' '\\localhost\Memory\Available Bytes'`},
				{"Every day from 8 AM to 5:30 PM:", `perfc logman update counter perf_log -b "11/23/2026 8:00:00AM" -e "11/23/2026 5:30:00PM" -r`},
				{"List the sets, then one in detail:", "perfc logman query\n    perfc logman query perf_log"},
				{"Alert when CPU passes 90% for three samples, once per firing:", `perfc logman create alert cpu_hot -th "\Processor(_Total)\% Processor Time>90" -si 5 -hold 3 -onchange -el -tn /usr/bin/logger -targ "{name}: {counter} is {value}"`},
				{"Copy a set to or from Windows:", "perfc logman export perf_log -xml perf_log.xml\n    perfc logman import perf_log_copy -xml perf_log.xml"},
			},
		},
	}
}

// logmanNegatable are the options logman negates with a doubled dash
// (--v removes versioning, --u the run-as user), perfc's -boot and
// -retain, and the alert options.
const logmanNegatable = "v max cnf a ow r rc boot u retain el tn targ rdcs onchange hold hyst arl"

// optValue is a string option that remembers whether it was given.
type optValue struct {
	v   string
	set bool
}

func (o *optValue) String() string     { return o.v }
func (o *optValue) Set(s string) error { o.v, o.set = s, true; return nil }

// logmanArgs takes out of args what parseFlags cannot read: the negated
// options (--v, --max, ...; returned by name), -cnf without a time (it
// becomes -cnf= so that the next word is not taken as its value) and -m's
// words (-m start stop becomes -m=start stop).
func logmanArgs(args []string) (rest []string, negated map[string]bool) {
	negated = map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if name, ok := strings.CutPrefix(a, "--"); ok && slices.Contains(strings.Fields(logmanNegatable), strings.ToLower(name)) {
			negated[strings.ToLower(name)] = true
			continue
		}
		if name, _, hasVal, ok := winOption(a); ok && !hasVal && strings.EqualFold(name, "m") {
			var words []string
			for i+1 < len(args) && (strings.EqualFold(args[i+1], "start") || strings.EqualFold(args[i+1], "stop")) {
				i++
				words = append(words, args[i])
			}
			if len(words) > 0 {
				rest = append(rest, "-m="+strings.Join(words, " "))
				continue
			}
		}
		if name, _, hasVal, ok := winOption(a); ok && !hasVal && strings.EqualFold(name, "cnf") {
			if i+1 >= len(args) {
				rest = append(rest, "-cnf=")
				continue
			}
			if _, err := collectorset.ParseSeconds(args[i+1]); err != nil {
				rest = append(rest, "-cnf=")
				continue
			}
		}
		rest = append(rest, a)
	}
	return rest, negated
}

// logmanCall is one logman command line, read: the options (one flag set
// for every verb, as Windows' logman reads them), the verb, the set's
// name and the tool's options from the environment.
type logmanCall struct {
	e                    *env
	fs                   *flag.FlagSet
	opt                  map[string]*optValue // the options with a value, by name
	flag                 map[string]*bool     // the options without one
	counters, thresholds stringList           // -c and the counter paths among the words; -th
	negated              map[string]bool      // --v, --max, ...
	verb, set            string
	alert                bool // create alert, update alert
	o                    logman.Options
}

// logmanVerbs are logman's verbs, each its function.
func logmanVerbs() map[string]func(context.Context, *logmanCall) error {
	return map[string]func(context.Context, *logmanCall) error{
		"create": func(_ context.Context, l *logmanCall) error { return l.withSpec(logman.Create) },
		"update": func(_ context.Context, l *logmanCall) error { return l.withSpec(logman.Update) },
		"query":  logmanQuery,
		"start":  func(ctx context.Context, l *logmanCall) error { return logman.Start(ctx, l.o, l.set) },
		"stop":   func(ctx context.Context, l *logmanCall) error { return logman.Stop(ctx, l.o, l.set) },
		"delete": func(_ context.Context, l *logmanCall) error { return logman.Delete(l.o, l.set) },
		"import": func(_ context.Context, l *logmanCall) error { return l.withXML(logman.Import) },
		"export": func(_ context.Context, l *logmanCall) error { return l.withXML(logman.Export) },
	}
}

func runLogman(ctx context.Context, c *command, e *env, args []string) error {
	l := logmanFlags(c, e)
	// A settings file's options come first (the command line wins), and
	// its negations (--v) count as the command line's do.
	args, err := withConfig(args)
	if err != nil {
		return err
	}
	var rest []string
	rest, l.negated = logmanArgs(args)
	pos, err := parseFlags(l.fs, rest)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	run, words, err := l.verbOf(pos)
	if err == nil {
		err = l.target(words)
	}
	if err != nil {
		return err
	}
	return run(ctx, l)
}

// logmanFlags returns logman's flag set, its options not yet parsed.
func logmanFlags(c *command, e *env) *logmanCall {
	l := &logmanCall{e: e, fs: c.flags(e.stdout), opt: map[string]*optValue{}, flag: map[string]*bool{}}
	str := func(name, usage string) { l.opt[name] = &optValue{}; l.fs.Var(l.opt[name], name, usage) }
	boolean := func(name, usage string) { l.flag[name] = l.fs.Bool(name, false, usage) }
	str("n", "The `name` of the target Data Collector Set (the -n may be left out).")
	l.fs.Var(&l.counters, "c", "Performance counters to collect: one or more paths, in one quoted list or as separate arguments starting with \\.")
	str("cf", "File listing performance counters to collect, one per line (UTF-8 or UTF-16 with a byte-order mark, or in the code page of -codepage).")
	str("codepage", cfCodePageUsage)
	l.fs.Var(&l.thresholds, "th", "Alert `thresholds`, each COUNTER>VALUE or COUNTER<VALUE, compared with the counter's formatted value; several may follow. A path with wildcards judges each instance on its own.")
	boolean("el", "Alerts: write an entry to the system log (syslog, the journal) each time a threshold is crossed. --el: do not.")
	str("tn", "Alerts: the `command` to run each time a threshold is crossed (as the set's owner, no shell). --tn: none.")
	str("targ", "Alerts: the command's `arguments`; {counter} {value} {threshold} {date} {name} are replaced by the firing's. --targ: none.")
	str("rdcs", "Alerts: the Data Collector Set `name` to start each time a threshold is crossed (one of your own). --rdcs: none.")
	str("hold", "Alerts (perfc's own): fire only after `n` samples in a row past the threshold. Default is 1 (Windows').")
	str("hyst", "Alerts (perfc's own): a fired alert clears only when the value is back past the threshold by this `amount`. Default is 0.")
	boolean("onchange", "Alerts (perfc's own): act when an alert fires and when it clears, not at every sample past the threshold (Windows'). --onchange: every sample.")
	str("arl", "Alerts (perfc's own): run each action at most once per `[[hh:]mm:]ss`. --arl: no limit.")
	str("si", "Sample interval `[[hh:]mm:]ss` of the counter collector. Default is 15 seconds.")
	str("f", "Log format `bin|bincirc|blg|csv|tsv|sql`; bin is perfc's binary log (.plog: smaller, crash-safe), bincirc a circular one (needs -max), blg Windows' binary log (.blg, for Windows' tools; linear only). Default is bin.")
	str("o", "Output log file `path`, or SQL:DSN!logset for -f sql. Default is $PERFC_LOG_DIR/NAME when set, else /var/log/perfc/NAME for root, ~/.local/share/perfc/logs/NAME otherwise.")
	str("max", "Maximum log file `size` in MB, or number of records for SQL logs. --max: no limit.")
	str("cnf", "Create a new file when the time `[[hh:]mm:]ss` has elapsed, or without a time when -max is reached. --cnf: never.")
	str("v", "Attach file versioning information to the end of the log name: `nnnnnn|mmddhhmm`. --v: none.")
	str("b", "Begin the Data Collector Set at the date and time given.")
	str("e", "End the Data Collector Set at the date and time given (needs -b).")
	str("rf", "Run the Data Collector Set for the time `[[hh:]mm:]ss` given.")
	str("sc", "Maximum number of `samples` to collect.")
	str("s", "Computer to record (create, update): the set's counters without a \\\\computer\\ are read from it, through its perfc serve and your hosts file; counters with one are read from that computer. Managing sets on another computer (-s with start, stop, query, delete) is not built.")
	str("rc", "The `command` to run each time the log is closed. --rc: none.")
	str("xml", "XML `file` to import or export (- for standard output).")
	str("retain", "Keep the set's log files within `limits` (perfc's own), comma-separated: N files, an age (7d, 12h, 30min), a total size (500MB, 2GB), free=SIZE to keep free on the disk; oldest (default) or largest go first; check refuses to start when they cannot be met. Applied at start and at each new file, to the set's own logs only. --retain: keep all.")
	str("m", "Change to manual `[start] [stop]` instead of a scheduled begin or end: start removes the schedule of -b and -r (the set starts with logman start), stop the run time of -e and -rf (it runs until logman stop).")
	str("u", "The `user` to run as: a set always runs as the user who owns it, so only your own user name is taken (no password). --u: none.")
	boolean("a", "Append to an existing log file. --a: do not.")
	boolean("ow", "Overwrite an existing log file. --ow: do not.")
	boolean("r", "Repeat the Data Collector Set daily at the -b and -e times. --r: do not.")
	boolean("boot", "Start the Data Collector Set when the computer starts (perfc's own). --boot: do not.")
	boolean("y", "Answer yes to all questions without prompting.")
	boolean("as", "Asynchronous start or stop (accepted; start returns once the collector records, stop once it has closed its log).")
	str("config", "Settings file containing command options: [option] lines, each followed by its values.")
	boolean("nowarn", "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	return l
}

// verbOf reads the positional words up to the set's name: counter
// paths (logman -c A B C), the verb, and create's and update's collector
// type. It returns the verb's function and the words left.
func (l *logmanCall) verbOf(pos []string) (func(context.Context, *logmanCall) error, []string, error) {
	var words []string
	for _, p := range pos {
		if strings.HasPrefix(p, `\`) {
			l.counters = append(l.counters, p)
		} else {
			words = append(words, p)
		}
	}
	if u := l.opt["u"]; u.set && slices.Contains(words, "*") { // Windows' -u user *: prompt for the password.
		return nil, nil, usagef("-u %s *: perfc asks for no password: a set runs as the user who owns it", u.v)
	}
	if len(words) == 0 {
		return nil, nil, usagef("no verb given: create, update, query, start, stop, delete, import or export")
	}
	l.verb = strings.ToLower(words[0])
	run, ok := logmanVerbs()[l.verb]
	switch {
	case !ok:
		return nil, nil, usagef("unknown verb %q: want create, update, query, start, stop, delete, import or export", words[0])
	case l.verb != "create" && l.verb != "update":
		return run, words[1:], nil
	case len(words) == 1:
		return nil, nil, usagef("%s needs the collector type: counter or alert", l.verb)
	}
	return run, words[2:], l.collectorType(words[1])
}

// target reads the set's name, -n's or the next word, and the tool's
// options from the environment.
func (l *logmanCall) target(words []string) error {
	l.set = l.opt["n"].v
	switch {
	case l.set == "" && len(words) > 0:
		l.set, words = words[0], words[1:]
	case l.set != "" && len(words) > 0 && l.verb != "query":
		return usagef("two names given: %q and %q", l.set, words[0])
	}
	if len(words) > 0 && l.opt["u"].set { // Not echoed: it may be a password (-u user password).
		return usagef("unexpected argument after the name: perfc's -u takes a user name and no password (a set runs as the user who owns it)")
	}
	if len(words) > 0 {
		return usagef("unexpected argument %q", words[0])
	}
	if s := l.opt["s"]; s.set && l.verb != "create" && l.verb != "update" && !isLocalHost(s.v) {
		return fmt.Errorf("-s %s: managing sets on another computer is not built; -s on create/update names the computer to record (run perfc logman %s on that computer, or leave out -s for this computer's sets)", s.v, l.verb)
	}
	var err error
	if l.o, err = logmanOptions(l.e, *l.flag["nowarn"]); err != nil {
		return err
	}
	if l.set == "" && l.verb != "query" {
		return usagef("%s needs the name of a Data Collector Set", l.verb)
	}
	return nil
}

// collectorType reads create's and update's collector type: counter or
// alert.
func (l *logmanCall) collectorType(typ string) error {
	switch strings.ToLower(typ) {
	case "counter":
	case "alert":
		l.alert = true
	case "trace":
		return usagef("%s trace: event trace sets are not part of perfc, which records performance counters; on Linux trace events with perf trace, bpftrace or LTTng", l.verb)
	case "cfg":
		return usagef("%s cfg: configuration sets (registry keys, management paths, files) are not part of perfc; on Linux gather a system's configuration with sos report (sosreport) or keep /etc in version control with etckeeper", l.verb)
	case "api":
		return usagef("%s api: API tracing sets are not part of perfc; on Linux trace a program's library and system calls with ltrace, strace or uprobes (perf probe, bpftrace)", l.verb)
	default:
		return usagef("%s %s: perfc's Data Collector Sets are counter and alert sets (%s counter NAME, %s alert NAME)", l.verb, typ, l.verb, l.verb)
	}
	return nil
}

// logmanQuery lists the sets, or shows one.
func logmanQuery(_ context.Context, l *logmanCall) error {
	switch {
	case l.set == "":
		return logman.Query(l.o)
	case strings.EqualFold(l.set, "providers"):
		return fmt.Errorf("query providers: event trace providers are not part of perfc, which records performance counters; on Linux list trace events with perf list, bpftrace -l or lttng list")
	}
	return logman.QuerySet(l.o, l.set)
}

// withXML is import and export: the set and its -xml file.
func (l *logmanCall) withXML(do func(o logman.Options, name, file string) error) error {
	if x := l.opt["xml"]; x.set && x.v != "" {
		return do(l.o, l.set, x.v)
	}
	return usagef("%s needs -xml FILE", l.verb)
}

// withSpec is create and update: the Spec of the options given.
func (l *logmanCall) withSpec(do func(o logman.Options, spec logman.Spec) error) error {
	spec := logman.Spec{Name: l.set, Alert: l.alert}
	if err := l.lists(&spec); err != nil {
		return err
	}
	if err := l.options(&spec); err != nil {
		return err
	}
	return do(l.o, spec)
}

// lists sets the Spec's counters and thresholds: -c and the paths among
// the words, -th, and the file of -cf (an alert's thresholds). An
// alert's -th may be followed by more thresholds, which the command line
// reads as counter paths.
func (l *logmanCall) lists(spec *logman.Spec) error {
	counters, thresholds := splitCounterLists(l.counters), l.thresholds
	if l.alert {
		thresholds, counters = append(thresholds, counters...), nil
	}
	if cf := l.opt["cf"].v; cf != "" {
		cp, err := parseCodePage("-codepage", l.opt["codepage"].v)
		if err != nil {
			return err
		}
		warn := l.e.warnings(*l.flag["nowarn"])
		more, err := readCounterList(cf, cp, func(msg string) { warn.Warn("logman:cf", msg) })
		if err != nil {
			return err
		}
		if l.alert {
			thresholds = append(thresholds, more...)
		} else {
			counters = append(counters, more...)
		}
	}
	if len(thresholds) > 0 {
		spec.Thresholds, spec.HasThresholds = thresholds, true
	}
	if len(counters) > 0 {
		spec.Counters, spec.HasCounters = counters, true
	}
	return nil
}

// options sets the Spec's options from those given; a negated one
// (--max) sets its zero value. The first error is returned.
func (l *logmanCall) options(spec *logman.Spec) error {
	var err error
	seconds := optParser("-%s: %v", collectorset.ParseSeconds)
	when := optParser("-%s: %v", func(s string) (time.Time, error) { return collectorset.ParseTime(s, time.Local) })
	spec.SampleInterval = logmanValue(&err, l, "si", seconds)
	spec.Format, spec.Output = logmanValue(&err, l, "f", optText), logmanValue(&err, l, "o", optText)
	spec.Max = logmanValue(&err, l, "max", optNumber)
	if spec.NoCnf = l.negated["cnf"]; !spec.NoCnf {
		spec.Cnf = logmanValue(&err, l, "cnf", func(opt, s string) (uint32, error) {
			if s == "" { // -cnf without a time: a new file at -max
				return 0, nil
			}
			return seconds(opt, s)
		})
	}
	spec.Version = logmanValue(&err, l, "v", optParser("-%s: %v", collectorset.ParseVersion))
	spec.Append, spec.Overwrite, spec.Repeat, spec.RunAtBoot = l.boolean("a"), l.boolean("ow"), l.boolean("r"), l.boolean("boot")
	spec.Begin, spec.End = logmanValue(&err, l, "b", when), logmanValue(&err, l, "e", when)
	spec.RunFor, spec.Samples = logmanValue(&err, l, "rf", seconds), logmanValue(&err, l, "sc", optNumber)
	spec.Server, spec.Task = logmanValue(&err, l, "s", optText), logmanValue(&err, l, "rc", optText)
	spec.AlertTask, spec.AlertArgs, spec.Trigger = logmanValue(&err, l, "tn", optText), logmanValue(&err, l, "targ", optText), logmanValue(&err, l, "rdcs", optText)
	spec.EventLog, spec.OnChange = l.boolean("el"), l.boolean("onchange")
	spec.Hold = logmanValue(&err, l, "hold", optNumber)
	spec.Hysteresis = logmanValue(&err, l, "hyst", func(_, s string) (float64, error) {
		h, err := strconv.ParseFloat(s, 64)
		if err != nil || h < 0 || h != h || h > 1e300 {
			return 0, usagef("-hyst %q: want a number of at least 0", s)
		}
		return h, nil
	})
	spec.ActionInterval = logmanValue(&err, l, "arl", seconds)
	spec.Retain = logmanValue(&err, l, "retain", optParser("%[2]v", collectorset.ParseRetention))
	spec.RunAs = logmanValue(&err, l, "u", optText)
	if m := l.opt["m"]; err == nil && m.set {
		spec.ManualStart, spec.ManualStop, err = manualWords(m.v)
	}
	return err
}

// logmanValue returns option opt's value for a Spec: nil when not given,
// the zero value when negated (--opt), else parse's of the value given.
// *err keeps the first error: once set, nothing more is parsed.
func logmanValue[T any](err *error, l *logmanCall, opt string, parse func(opt, s string) (T, error)) *T {
	var v T
	switch {
	case *err != nil:
		return nil
	case l.negated[opt]:
		return &v
	case !l.opt[opt].set:
		return nil
	}
	v, e := parse(opt, l.opt[opt].v)
	if e != nil {
		*err = e
		return nil
	}
	return &v
}

// boolean returns a Spec's flag: nil when not given, false when negated.
func (l *logmanCall) boolean(opt string) *bool {
	given := false
	l.fs.Visit(func(f *flag.Flag) { given = given || f.Name == opt })
	switch {
	case l.negated[opt]:
		return new(bool)
	case given:
		return l.flag[opt]
	}
	return nil
}

// optParser makes parse a parser of an option's value whose error is a
// usage error, written by format from the option's name and the error.
func optParser[T any](format string, parse func(string) (T, error)) func(opt, s string) (T, error) {
	return func(opt, s string) (T, error) {
		v, err := parse(s)
		if err != nil {
			return v, usagef(format, opt, err)
		}
		return v, nil
	}
}

func optText(_, s string) (string, error) { return s, nil }

func optNumber(opt, s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, usagef("-%s %q: want a whole number from 0 to 4294967295", opt, s)
	}
	return uint32(n), nil
}

// manualWords reads -m's words: start, stop or both.
func manualWords(v string) (start, stop bool, err error) {
	for _, w := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == ' ' || r == ',' }) {
		switch w {
		case "start":
			start = true
		case "stop":
			stop = true
		default:
			return false, false, usagef("-m %s: want start, stop, or both", v)
		}
	}
	if !start && !stop {
		return false, false, usagef("-m needs start, stop, or both")
	}
	return start, stop, nil
}

// withConfig puts the options of the settings file that -config names
// before args, as parseWithConfig does.
func withConfig(args []string) ([]string, error) {
	for i, a := range args {
		name, _, hasVal, ok := winOption(a)
		if ok && !hasVal && strings.EqualFold(name, "config") && i+1 < len(args) {
			data, err := readCapped(args[i+1], maxConfigSize)
			if err != nil {
				return nil, err
			}
			cfg, err := parseConfigFile(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", args[i+1], err)
			}
			return append(cfg, args...), nil
		}
	}
	return args, nil
}

// logmanOptions are the tool's options from the environment: the
// caller's state directory (state.Path), the system sets' (root's:
// $PERFC_SYSTEM_STATE_DIR, else /var/lib/perfc; for root its own), the
// caller's name and where new sets' logs go.
func logmanOptions(e *env, nowarn bool) (logman.Options, error) {
	euid := os.Geteuid()
	dir, err := state.Path(e.getenv, euid)
	if err != nil {
		return logman.Options{}, err
	}
	sys := dir
	if euid != 0 {
		sys = e.getenv("PERFC_SYSTEM_STATE_DIR")
		if sys == "" {
			sys = "/var/lib/perfc"
		}
	}
	name := strconv.Itoa(euid)
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	warn := e.warnings(nowarn)
	return logman.Options{
		UserDir: dir, SystemDir: sys, User: name,
		Runner:      collectorRunner(),
		DefaultRoot: func(set string) string { return logman.DefaultLogRoot(e.getenv, euid, dir, set) },
		Stdout:      e.stdout,
		Warn:        func(msg string) { warn.Warn("logman:"+msg, msg) },
	}, nil
}

// isLocalHost reports whether -s names this computer.
func isLocalHost(s string) bool {
	s = strings.TrimPrefix(s, `\\`)
	if s == "" || strings.EqualFold(s, "localhost") || s == "." || s == "127.0.0.1" || s == "::1" {
		return true
	}
	h, err := os.Hostname()
	return err == nil && strings.EqualFold(s, h)
}
