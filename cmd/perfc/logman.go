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
	}
}

// logmanNegatable are the options logman negates with a doubled dash
// (--v removes versioning, --u the run-as user), perfc's -boot and
// -retain, and the alert options.
var logmanNegatable = map[string]bool{"v": true, "max": true, "cnf": true, "a": true, "ow": true, "r": true, "rc": true, "boot": true,
	"u": true, "retain": true, "el": true, "tn": true, "targ": true, "rdcs": true, "onchange": true, "hold": true, "hyst": true, "arl": true}

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
		if name, ok := strings.CutPrefix(a, "--"); ok && logmanNegatable[strings.ToLower(name)] {
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

func runLogman(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && strings.EqualFold(args[0], "service") {
		return runLogmanService(ctx, e, args[1:])
	}
	fs := newFlags("logman", e.stdout)
	name := fs.String("n", "", "The `name` of the target Data Collector Set (the -n may be left out).")
	var counters stringList
	fs.Var(&counters, "c", "Performance counters to collect: one or more paths, in one quoted list or as separate arguments starting with \\.")
	cf := fs.String("cf", "", "File listing performance counters to collect, one per line (UTF-8 or UTF-16 with a byte-order mark, or in the code page of -codepage).")
	codePage := fs.String("codepage", "", cfCodePageUsage)
	var si, format, out, max, cnf, ver, begin, end, rf, sc, server, task, xmlFile, retain, manual, runAs, alertTask, alertArgs, trigger, hold, hyst, arl optValue
	var thresholds stringList
	fs.Var(&thresholds, "th", "Alert `thresholds`, each COUNTER>VALUE or COUNTER<VALUE, compared with the counter's formatted value; several may follow. A path with wildcards judges each instance on its own.")
	eventLog := fs.Bool("el", false, "Alerts: write an entry to the system log (syslog, the journal) each time a threshold is crossed. --el: do not.")
	fs.Var(&alertTask, "tn", "Alerts: the `command` to run each time a threshold is crossed (as the set's owner, no shell). --tn: none.")
	fs.Var(&alertArgs, "targ", "Alerts: the command's `arguments`; {counter} {value} {threshold} {date} {name} are replaced by the firing's. --targ: none.")
	fs.Var(&trigger, "rdcs", "Alerts: the Data Collector Set `name` to start each time a threshold is crossed (one of your own). --rdcs: none.")
	fs.Var(&hold, "hold", "Alerts (perfc's own): fire only after `n` samples in a row past the threshold. Default is 1 (Windows').")
	fs.Var(&hyst, "hyst", "Alerts (perfc's own): a fired alert clears only when the value is back past the threshold by this `amount`. Default is 0.")
	onChange := fs.Bool("onchange", false, "Alerts (perfc's own): act when an alert fires and when it clears, not at every sample past the threshold (Windows'). --onchange: every sample.")
	fs.Var(&arl, "arl", "Alerts (perfc's own): run each action at most once per `[[hh:]mm:]ss`. --arl: no limit.")
	fs.Var(&si, "si", "Sample interval `[[hh:]mm:]ss` of the counter collector. Default is 15 seconds.")
	fs.Var(&format, "f", "Log format `bin|bincirc|csv|tsv|sql`; bincirc is a circular binary log and needs -max. Default is bin.")
	fs.Var(&out, "o", "Output log file `path`, or SQL:DSN!logset for -f sql. Default is $PERFC_LOG_DIR/NAME when set, else /var/log/perfc/NAME for root, ~/.local/share/perfc/logs/NAME otherwise.")
	fs.Var(&max, "max", "Maximum log file `size` in MB, or number of records for SQL logs. --max: no limit.")
	fs.Var(&cnf, "cnf", "Create a new file when the time `[[hh:]mm:]ss` has elapsed, or without a time when -max is reached. --cnf: never.")
	fs.Var(&ver, "v", "Attach file versioning information to the end of the log name: `nnnnnn|mmddhhmm`. --v: none.")
	fs.Var(&begin, "b", "Begin the Data Collector Set at the date and time given.")
	fs.Var(&end, "e", "End the Data Collector Set at the date and time given (needs -b).")
	fs.Var(&rf, "rf", "Run the Data Collector Set for the time `[[hh:]mm:]ss` given.")
	fs.Var(&sc, "sc", "Maximum number of `samples` to collect.")
	fs.Var(&server, "s", "Computer to record (create, update): the set's counters without a \\\\computer\\ are read from it, through its perfc serve and your hosts file; counters with one are read from that computer. Managing sets on another computer (-s with start, stop, query, delete) is not built.")
	fs.Var(&task, "rc", "The `command` to run each time the log is closed. --rc: none.")
	fs.Var(&xmlFile, "xml", "XML `file` to import or export (- for standard output).")
	fs.Var(&retain, "retain", "Keep the set's log files within `limits` (perfc's own), comma-separated: N files, an age (7d, 12h, 30min), a total size (500MB, 2GB), free=SIZE to keep free on the disk; oldest (default) or largest go first; check refuses to start when they cannot be met. Applied at start and at each new file, to the set's own logs only. --retain: keep all.")
	fs.Var(&manual, "m", "Change to manual `[start] [stop]` instead of a scheduled begin or end: start removes the schedule of -b and -r (the set starts with logman start), stop the run time of -e and -rf (it runs until logman stop).")
	fs.Var(&runAs, "u", "The `user` to run as: a set always runs as the user who owns it, so only your own user name is taken (no password). --u: none.")
	appendLog := fs.Bool("a", false, "Append to an existing log file. --a: do not.")
	overwrite := fs.Bool("ow", false, "Overwrite an existing log file. --ow: do not.")
	repeat := fs.Bool("r", false, "Repeat the Data Collector Set daily at the -b and -e times. --r: do not.")
	boot := fs.Bool("boot", false, "Start the Data Collector Set when the computer starts (perfc's own). --boot: do not.")
	fs.Bool("y", false, "Answer yes to all questions without prompting.")
	fs.Bool("as", false, "Asynchronous start or stop (accepted; start returns once the collector records, stop once it has closed its log).")
	fs.String("config", "", "Settings file containing command options: [option] lines, each followed by its values.")
	nowarn := fs.Bool("nowarn", false, "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	// A settings file's options come first (the command line wins), and
	// its negations (--v) count as the command line's do.
	args, err := withConfig(args)
	if err != nil {
		return err
	}
	rest, negated := logmanArgs(args)
	pos, err := parseFlags(fs, rest)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	// Counter paths among the positional words (logman -c A B C).
	var words []string
	for _, p := range pos {
		if strings.HasPrefix(p, `\`) {
			counters = append(counters, p)
		} else {
			words = append(words, p)
		}
	}
	if runAs.set {
		// Windows' -u user *: prompt for the password.
		if slices.Contains(words, "*") {
			return usagef("-u %s *: perfc asks for no password: a set runs as the user who owns it", runAs.v)
		}
	}
	if len(words) == 0 {
		return usagef("no verb given: create, update, query, start, stop, delete, import or export")
	}
	verb := strings.ToLower(words[0])
	words = words[1:]
	alert := false
	switch verb {
	case "create", "update":
		if len(words) == 0 {
			return usagef("%s needs the collector type: counter or alert", verb)
		}
		switch typ := strings.ToLower(words[0]); typ {
		case "counter":
		case "alert":
			alert = true
		case "trace":
			return usagef("%s trace: event trace sets are not part of perfc, which records performance counters; on Linux trace events with perf trace, bpftrace or LTTng", verb)
		case "cfg":
			return usagef("%s cfg: configuration sets (registry keys, management paths, files) are not part of perfc; on Linux gather a system's configuration with sos report (sosreport) or keep /etc in version control with etckeeper", verb)
		case "api":
			return usagef("%s api: API tracing sets are not part of perfc; on Linux trace a program's library and system calls with ltrace, strace or uprobes (perf probe, bpftrace)", verb)
		default:
			return usagef("%s %s: perfc's Data Collector Sets are counter and alert sets (%s counter NAME, %s alert NAME)", verb, words[0], verb, verb)
		}
		words = words[1:]
	case "query", "start", "stop", "delete", "import", "export":
	default:
		return usagef("unknown verb %q: want create, update, query, start, stop, delete, import or export", words[0])
	}
	setName := *name
	switch {
	case setName == "" && len(words) > 0:
		setName, words = words[0], words[1:]
	case setName != "" && len(words) > 0 && verb != "query":
		return usagef("two names given: %q and %q", setName, words[0])
	}
	if len(words) > 0 {
		if runAs.set {
			// Not echoed: it may be a password (-u user password).
			return usagef("unexpected argument after the name: perfc's -u takes a user name and no password (a set runs as the user who owns it)")
		}
		return usagef("unexpected argument %q", words[0])
	}
	if server.set && verb != "create" && verb != "update" && !isLocalHost(server.v) {
		return fmt.Errorf("-s %s: managing sets on another computer is not built; -s on create/update names the computer to record (run perfc logman %s on that computer, or leave out -s for this computer's sets)", server.v, verb)
	}
	o, err := logmanOptions(e, *nowarn)
	if err != nil {
		return err
	}
	if setName == "" && verb != "query" {
		return usagef("%s needs the name of a Data Collector Set", verb)
	}
	if strings.EqualFold(setName, "providers") && verb == "query" {
		return fmt.Errorf("query providers: event trace providers are not part of perfc, which records performance counters; on Linux list trace events with perf list, bpftrace -l or lttng list")
	}
	switch verb {
	case "query":
		if setName == "" {
			return logman.Query(o)
		}
		return logman.QuerySet(o, setName)
	case "start":
		return logman.Start(ctx, o, setName)
	case "stop":
		return logman.Stop(ctx, o, setName)
	case "delete":
		return logman.Delete(o, setName)
	case "import", "export":
		if !xmlFile.set || xmlFile.v == "" {
			return usagef("%s needs -xml FILE", verb)
		}
		if verb == "import" {
			return logman.Import(o, setName, xmlFile.v)
		}
		return logman.Export(o, setName, xmlFile.v)
	}
	// create, update.
	spec := logman.Spec{Name: setName, Alert: alert}
	counters = splitCounterLists(counters)
	if alert {
		// An alert's -th may be followed by more thresholds, which the
		// command line reads as counter paths; -cf lists thresholds.
		thresholds = append(thresholds, counters...)
		counters = nil
	}
	if *cf != "" {
		cp, err := parseCodePage("-codepage", *codePage)
		if err != nil {
			return err
		}
		warn := e.warnings(*nowarn)
		more, err := readCounterList(*cf, cp, func(msg string) { warn.Warn("logman:cf", msg) })
		if err != nil {
			return err
		}
		if alert {
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
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	seconds := func(opt string, v optValue) (*uint32, error) {
		n, err := collectorset.ParseSeconds(v.v)
		if err != nil {
			return nil, usagef("-%s: %v", opt, err)
		}
		return &n, nil
	}
	number := func(opt string, v optValue) (*uint32, error) {
		n, err := strconv.ParseUint(v.v, 10, 32)
		if err != nil {
			return nil, usagef("-%s %q: want a whole number from 0 to 4294967295", opt, v.v)
		}
		u := uint32(n)
		return &u, nil
	}
	when := func(opt string, v optValue) (*time.Time, error) {
		t, err := collectorset.ParseTime(v.v, time.Local)
		if err != nil {
			return nil, usagef("-%s: %v", opt, err)
		}
		return &t, nil
	}
	if si.set {
		if spec.SampleInterval, err = seconds("si", si); err != nil {
			return err
		}
	}
	if format.set {
		spec.Format = &format.v
	}
	if out.set {
		spec.Output = &out.v
	}
	zero := uint32(0)
	switch {
	case negated["max"]:
		spec.Max = &zero
	case max.set:
		if spec.Max, err = number("max", max); err != nil {
			return err
		}
	}
	switch {
	case negated["cnf"]:
		spec.NoCnf = true
	case cnf.set && cnf.v == "":
		spec.Cnf = &zero
	case cnf.set:
		if spec.Cnf, err = seconds("cnf", cnf); err != nil {
			return err
		}
	}
	switch {
	case negated["v"]:
		none := collectorset.FileNameNone
		spec.Version = &none
	case ver.set:
		v, err := collectorset.ParseVersion(ver.v)
		if err != nil {
			return usagef("-v: %v", err)
		}
		spec.Version = &v
	}
	boolOpt := func(opt string, v *bool) *bool {
		switch {
		case negated[opt]:
			f := false
			return &f
		case given[opt]:
			return v
		}
		return nil
	}
	spec.Append, spec.Overwrite, spec.Repeat, spec.RunAtBoot = boolOpt("a", appendLog), boolOpt("ow", overwrite), boolOpt("r", repeat), boolOpt("boot", boot)
	if begin.set {
		if spec.Begin, err = when("b", begin); err != nil {
			return err
		}
	}
	if end.set {
		if spec.End, err = when("e", end); err != nil {
			return err
		}
	}
	if rf.set {
		if spec.RunFor, err = seconds("rf", rf); err != nil {
			return err
		}
	}
	if sc.set {
		if spec.Samples, err = number("sc", sc); err != nil {
			return err
		}
	}
	if server.set {
		spec.Server = &server.v
	}
	switch {
	case negated["rc"]:
		empty := ""
		spec.Task = &empty
	case task.set:
		spec.Task = &task.v
	}
	str := func(opt string, v *optValue) *string {
		switch {
		case negated[opt]:
			empty := ""
			return &empty
		case v.set:
			return &v.v
		}
		return nil
	}
	spec.AlertTask, spec.AlertArgs, spec.Trigger = str("tn", &alertTask), str("targ", &alertArgs), str("rdcs", &trigger)
	spec.EventLog, spec.OnChange = boolOpt("el", eventLog), boolOpt("onchange", onChange)
	switch {
	case negated["hold"]:
		spec.Hold = &zero
	case hold.set:
		if spec.Hold, err = number("hold", hold); err != nil {
			return err
		}
	}
	switch {
	case negated["hyst"]:
		z := 0.0
		spec.Hysteresis = &z
	case hyst.set:
		h, err := strconv.ParseFloat(hyst.v, 64)
		if err != nil || h < 0 || h != h || h > 1e300 {
			return usagef("-hyst %q: want a number of at least 0", hyst.v)
		}
		spec.Hysteresis = &h
	}
	switch {
	case negated["arl"]:
		spec.ActionInterval = &zero
	case arl.set:
		if spec.ActionInterval, err = seconds("arl", arl); err != nil {
			return err
		}
	}
	switch {
	case negated["retain"]:
		spec.Retain = &collectorset.Retention{}
	case retain.set:
		r, err := collectorset.ParseRetention(retain.v)
		if err != nil {
			return usagef("%v", err)
		}
		spec.Retain = &r
	}
	if manual.set {
		for _, w := range strings.FieldsFunc(strings.ToLower(manual.v), func(r rune) bool { return r == ' ' || r == ',' }) {
			switch w {
			case "start":
				spec.ManualStart = true
			case "stop":
				spec.ManualStop = true
			default:
				return usagef("-m %s: want start, stop, or both", manual.v)
			}
		}
		if !spec.ManualStart && !spec.ManualStop {
			return usagef("-m needs start, stop, or both")
		}
	}
	switch {
	case negated["u"]:
		empty := ""
		spec.RunAs = &empty
	case runAs.set:
		spec.RunAs = &runAs.v
	}
	if verb == "create" {
		return logman.Create(o, spec)
	}
	return logman.Update(o, spec)
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

// logmanHelp is logman's help screen.
func logmanHelp() helpScreen {
	return helpScreen{
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
	}
}
