// Package logman implements the definition half of `perfc logman`, the
// counterpart of Windows' logman for performance counter Data Collector
// Sets: create, update, query (the list and the Key: detail form),
// delete, export and import in the DataCollectorSet XML, with Windows'
// messages. Definitions are stored by the state package (one file per
// set in the state directory of the user who creates it; root's are the
// system sets, which every user sees). Running a set (start, stop, and
// whether it runs) belongs to the collector service: this package reaches
// it only through the Runner interface (pla's service, which the program
// passes in).
//
// Decisions where Windows' behaviour could not be checked here:
//
//   - Success prints "The command completed successfully." on standard
//     output (exit status 0). A failure is an *Error: Windows' message
//     (e.g. "Data Collector Set was not found."), perfc's detail (cause and
//     fix) when there is one, and "The command failed, code: 0x80300002"
//     with the HRESULT; perfc prints it on standard error and exits 1
//     (exit codes are 8 bits on Linux: the HRESULT is in the text).
//   - The caller's sets and the system sets share one namespace, as the
//     sets of one Windows computer do: create and import refuse a name
//     either holds ("Data Collector Set already exists."); a name is
//     looked up in the caller's sets first. -ow is the log's overwrite
//     flag (LogOverwrite), not a licence to replace a set.
//   - Changing a set in a state directory the caller may not write is
//     "Access is denied." (0x80070005), naming the directory.
//   - A set without -o logs into DefaultLogRoot. An imported set whose
//     RootPath is not a directory here (a Windows path) gets it too, with
//     a warning.
//   - -e needs a begin time (-b, or the set's schedule): MS-PLA keeps a
//     duration, not an end time (Spec.schedule).
//   - create, update and import refuse what the set could not do at start
//     (collectorset's Validate and CheckRunnable: -cnf with csv, tsv or
//     sql, a relative log directory, ...), with "The parameter is
//     incorrect.": a set they store is never refused at start for its
//     definition.
//   - -retain (perfc's own) sets the data manager (MS-PLA IDataManager)
//     and replaces what it had; --retain turns it off. File count, age and
//     size limits need a set that writes a series (-v, -cnf) and are
//     refused for one that writes one file or an SQL log set.
//   - -m start removes the schedule, -m stop the run time (Duration); with
//     -b, -e, -r or -rf in the same command they are refused.
//   - -u takes the caller's own user name only (stored as UserAccount): a
//     set runs as the user who owns it; --u clears it.
package logman

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/state"
)

// Runner is the running half of logman: the collector service (Windows'
// Performance Logs and Alerts), which starts and stops sets and knows
// which run. dir is the state directory holding the set's definition.
type Runner interface {
	// Status tells whether the set runs now; detail, when not empty, says
	// more (a pid, why it stopped) for `logman query NAME`.
	Status(dir string, set *collectorset.Set) (running bool, detail string)
	// Start starts the set's collection in the background. When the set
	// runs already, or another start of it won a race, its error
	// satisfies errors.Is(err, state.ErrCollectorSetRunning).
	Start(ctx context.Context, dir string, set *collectorset.Set) error
	// Stop stops it.
	Stop(ctx context.Context, dir string, set *collectorset.Set) error
}

// Options are what every verb needs from the program.
type Options struct {
	// UserDir is the caller's state directory (state.Path): the sets it
	// creates go there.
	UserDir string
	// SystemDir is root's state directory, whose sets are the system sets
	// every user sees; equal to UserDir when root runs logman.
	SystemDir string
	// User names the caller, shown as Run As for the caller's sets (the
	// system sets run as root).
	User string
	// Runner is the collector service (required).
	Runner Runner
	// DefaultRoot gives the log directory of a new set without -o.
	DefaultRoot func(name string) string
	// WorkDir makes a relative -o absolute (the service has no working
	// directory of the caller's); empty: the process's.
	WorkDir string
	// Stdout receives what logman prints; Warn, messages about sets that
	// could not be read (nil: none).
	Stdout io.Writer
	Warn   func(msg string)
	// Now is the clock (nil: time.Now), for the output location of sets
	// named by date.
	Now func() time.Time
}

func (o *Options) runner() Runner { return o.Runner }

// owner names the caller for messages: User, or "you" when unknown.
func (o *Options) owner() string {
	if o.User == "" {
		return "you"
	}
	return o.User
}

func (o *Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *Options) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// dirs lists the state directories whose sets the caller sees: its own,
// then the system's (once when they are the same).
func (o *Options) dirs() []string {
	if o.SystemDir == "" || filepath.Clean(o.SystemDir) == filepath.Clean(o.UserDir) {
		return []string{o.UserDir}
	}
	return []string{o.UserDir, o.SystemDir}
}

// The HRESULTs logman reports.
const (
	CodeNotFound     = 0x80300002 // PLA_E_DCS_NOT_FOUND
	CodeExists       = 0x803000B7 // PLA_E_DCS_ALREADY_EXISTS
	CodeAccessDenied = 0x80070005 // E_ACCESSDENIED
	CodeInvalid      = 0x80070057 // E_INVALIDARG
	CodeFailed       = 0x80004005 // E_FAIL
	CodeInUse        = 0x803000AA // PLA_E_DCS_IN_USE
	CodeNotRunning   = 0x80300104 // PLA_E_DCS_NOT_RUNNING
)

// Error is a failed logman command as Windows reports it: its message,
// what perfc adds about the cause (Detail), and the HRESULT.
type Error struct {
	Code    uint32
	Message string // Windows' words
	Detail  string // the cause and the fix; may be empty
	Err     error
}

func (e *Error) Error() string {
	s := e.Message
	if e.Detail != "" {
		s += "\n" + e.Detail
	}
	return s + fmt.Sprintf("\nThe command failed, code: 0x%08X", e.Code)
}

func (e *Error) Unwrap() error { return e.Err }

// fail words an error of the state package as logman does.
func fail(err error, dir string) error {
	var le *Error
	var te *state.TrustError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le):
		return err
	case errors.Is(err, state.ErrCollectorSetNotFound):
		return &Error{Code: CodeNotFound, Message: "Data Collector Set was not found.", Err: err}
	case errors.Is(err, state.ErrCollectorSetExists):
		return &Error{Code: CodeExists, Message: "Data Collector Set already exists.", Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Code: CodeAccessDenied, Message: "Access is denied.",
			Detail: fmt.Sprintf("The set is defined in %s, which you may read but not change: changing it needs the right to write there (the system sets: root).", dir), Err: err}
	case errors.As(err, &te):
		return &Error{Code: CodeAccessDenied, Message: "Access is denied.", Detail: err.Error(), Err: err}
	}
	return &Error{Code: CodeFailed, Message: "The Data Collector Set could not be changed.", Detail: err.Error(), Err: err}
}

// check judges a definition that create, update or import would store:
// valid (Validate), and one perfc can run (CheckRunnable), so that what
// they accept is never refused at start for its definition.
func check(s *collectorset.Set) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return s.CheckRunnable()
}

func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: "The parameter is incorrect.", Detail: fmt.Sprintf(format, args...)}
}

const completed = "The command completed successfully.\n"

// found is a set and the state directory holding it.
type found struct {
	dir string
	set *collectorset.Set
}

// find looks a set up by name in the caller's sets, then the system's.
func (o *Options) find(name string) (found, error) {
	var first error
	for _, d := range o.dirs() {
		s, err := state.ReadCollectorSet(d, name)
		if err == nil {
			return found{d, s}, nil
		}
		if !errors.Is(err, state.ErrCollectorSetNotFound) && first == nil {
			first = err
		}
	}
	if first != nil {
		return found{}, &Error{Code: CodeFailed, Message: "The Data Collector Set could not be read.", Detail: first.Error(), Err: first}
	}
	return found{}, fail(fmt.Errorf("%q: %w", name, state.ErrCollectorSetNotFound), "")
}

// Create creates a counter set from spec in the caller's state
// directory. A set of that name among the caller's or the system sets is
// an error (Data Collector Set already exists.).
func Create(o Options, spec Spec) error {
	if err := collectorset.CheckName(spec.Name); err != nil {
		return invalid("%v", err)
	}
	for _, d := range o.dirs() {
		if _, err := state.ReadCollectorSet(d, spec.Name); !errors.Is(err, state.ErrCollectorSetNotFound) {
			if err == nil || errors.As(err, new(*state.SetFileError)) {
				return fail(fmt.Errorf("%q: %w", spec.Name, state.ErrCollectorSetExists), d)
			}
		}
	}
	var s *collectorset.Set
	if spec.Alert {
		s = collectorset.NewAlert(spec.Name)
	} else {
		root := filepath.Join(os.TempDir(), spec.Name)
		if o.DefaultRoot != nil {
			root = o.DefaultRoot(spec.Name)
		}
		s = collectorset.New(spec.Name, root)
	}
	if err := spec.apply(&o, s); err != nil {
		return err
	}
	if err := check(s); err != nil {
		return invalid("%v", err)
	}
	if err := state.CreateCollectorSet(o.UserDir, s, false); err != nil {
		return fail(err, o.UserDir)
	}
	_, err := io.WriteString(o.Stdout, completed)
	return err
}

// Update changes the options spec gives of an existing set, the
// caller's or (for root) a system set.
func Update(o Options, spec Spec) error {
	f, err := o.find(spec.Name)
	if err != nil {
		return err
	}
	s := f.set.Clone()
	if spec.Alert != (s.Alert != nil) {
		return invalid("%s is a %s set: update it with logman update %s %s", s.Name, strings.ToLower(s.Type()), strings.ToLower(s.Type()), s.Name)
	}
	if err := spec.apply(&o, s); err != nil {
		return err
	}
	if err := check(s); err != nil {
		return invalid("%v", err)
	}
	if err := state.UpdateCollectorSet(f.dir, s); err != nil {
		return fail(err, f.dir)
	}
	msg := completed
	if running, _ := o.runner().Status(f.dir, f.set); running {
		// Windows restarts the collection; perfc's collector keeps the
		// definition it started with: say so rather than nothing.
		msg = fmt.Sprintf("The Data Collector Set %s is running: the change applies when it next starts (perfc logman stop %s, then perfc logman start %s).\n", s.Name, s.Name, s.Name) + completed
	}
	_, err = io.WriteString(o.Stdout, msg)
	return err
}

// Delete deletes a set's definition and its run-state files. A running
// set is not deleted.
func Delete(o Options, name string) error {
	f, err := o.find(name)
	if err != nil {
		// A damaged definition is deleted all the same: that is its repair.
		var le *Error
		if !errors.As(err, &le) || le.Code == CodeNotFound {
			return err
		}
		for _, d := range o.dirs() {
			if _, derr := state.DeleteCollectorSet(d, name); derr == nil {
				_, err := io.WriteString(o.Stdout, completed)
				return err
			} else if !errors.Is(derr, state.ErrCollectorSetNotFound) {
				return fail(derr, d)
			}
		}
		return err
	}
	if running, _ := o.runner().Status(f.dir, f.set); running {
		return &Error{Code: CodeInUse, Message: "The Data Collector Set or one of its dependencies is already in use.",
			Detail: fmt.Sprintf("Stop it first: perfc logman stop %q", f.set.Name)}
	}
	if _, err := state.DeleteCollectorSet(f.dir, f.set.Name); err != nil {
		return fail(err, f.dir)
	}
	// Its run-state files go with it (record, status, warnings, stop
	// request, lock): a later set of the name starts clean.
	for _, suffix := range state.RunFileSuffixes {
		if err := state.RemoveRunFile(f.dir, f.set.Name, suffix); err != nil {
			o.warn(err.Error())
		}
	}
	if err := state.RemoveRunLock(f.dir, f.set.Name); err != nil {
		o.warn(err.Error())
	}
	_, err = io.WriteString(o.Stdout, completed)
	return err
}

// Start starts a set through the Runner.
func Start(ctx context.Context, o Options, name string) error {
	f, err := o.find(name)
	if err != nil {
		return err
	}
	if running, detail := o.runner().Status(f.dir, f.set); running {
		return &Error{Code: CodeInUse, Message: "The Data Collector Set or one of its dependencies is already in use.",
			Detail: fmt.Sprintf("%s is running (%s); stop it first: perfc logman stop %q", f.set.Name, detail, f.set.Name)}
	}
	if err := o.runner().Start(ctx, f.dir, f.set); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.As(err, new(*state.TrustError)) {
			return fail(err, f.dir)
		}
		if errors.Is(err, state.ErrCollectorSetRunning) {
			// Another start of the set, at the same moment, won.
			return &Error{Code: CodeInUse, Message: "The Data Collector Set or one of its dependencies is already in use.",
				Detail: fmt.Sprintf("%s: %v", f.set.Name, err), Err: err}
		}
		return &Error{Code: CodeFailed, Message: "The Data Collector Set could not be started.", Detail: err.Error(), Err: err}
	}
	_, err = io.WriteString(o.Stdout, completed)
	return err
}

// Stop stops a set through the Runner.
func Stop(ctx context.Context, o Options, name string) error {
	f, err := o.find(name)
	if err != nil {
		return err
	}
	if running, _ := o.runner().Status(f.dir, f.set); !running {
		return &Error{Code: CodeNotRunning, Message: "Data Collector Set is not running."}
	}
	if err := o.runner().Stop(ctx, f.dir, f.set); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EPERM) || errors.As(err, new(*state.TrustError)) {
			return fail(err, f.dir)
		}
		return &Error{Code: CodeFailed, Message: "The Data Collector Set could not be stopped.", Detail: err.Error(), Err: err}
	}
	_, err = io.WriteString(o.Stdout, completed)
	return err
}

// Export writes a set as a DataCollectorSet XML into file ("-": Stdout),
// with its status as the Runner tells it.
func Export(o Options, name, file string) error {
	f, err := o.find(name)
	if err != nil {
		return err
	}
	s := f.set.Clone()
	if running, _ := o.runner().Status(f.dir, f.set); running {
		s.Status = collectorset.Running
	}
	data := s.XML()
	if file == "-" {
		_, err := o.Stdout.Write(data)
		return err
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return &Error{Code: CodeFailed, Message: "The XML file could not be written.", Detail: err.Error(), Err: err}
	}
	_, err = io.WriteString(o.Stdout, completed)
	return err
}

// Import creates the set name from a DataCollectorSet XML file (UTF-8 or
// UTF-16, as Windows writes it). A root path that is no absolute path
// here (a Windows path such as %systemdrive%\PerfLogs\Admin) is replaced
// by the default log directory, with a warning.
func Import(o Options, name, file string) error {
	if err := collectorset.CheckName(name); err != nil {
		return invalid("%v", err)
	}
	fh, err := os.Open(file)
	if err != nil {
		return &Error{Code: CodeFailed, Message: "The XML file could not be read.", Detail: err.Error(), Err: err}
	}
	s, err := collectorset.ReadXML(fh, file)
	fh.Close()
	if err != nil {
		return &Error{Code: CodeInvalid, Message: "The XML file is not a valid Data Collector Set.", Detail: err.Error(), Err: err}
	}
	old := s.Name
	s.Name, s.Status = name, collectorset.Stopped
	if a := s.Alert; a != nil {
		if a.Name == "" || collectorset.SameName(a.Name, old) {
			a.Name = name
		}
		if a.SampleInterval == 0 {
			a.SampleInterval = collectorset.DefaultSampleInterval
		}
	} else if s.Collector.Name == "" || collectorset.SameName(s.Collector.Name, old) {
		s.Collector.Name = name
	}
	if s.Alert == nil && s.Collector.FileName == "" {
		s.Collector.FileName = name
	}
	if s.Alert == nil && s.Collector.SampleInterval == 0 {
		s.Collector.SampleInterval = collectorset.DefaultSampleInterval
	}
	if s.Alert == nil && (!filepath.IsAbs(s.RootPath) || strings.ContainsAny(s.RootPath, `\%`)) {
		root := filepath.Join(os.TempDir(), name)
		if o.DefaultRoot != nil {
			root = o.DefaultRoot(name)
		}
		if s.RootPath != "" {
			o.warn(fmt.Sprintf("root path %s is not a directory of this computer: the logs of %s go to %s (change it with -o)", s.RootPath, name, root))
		}
		s.RootPath = root
	}
	if err := check(s); err != nil {
		return invalid("%s: %v", file, err)
	}
	for _, d := range o.dirs() {
		if _, err := state.ReadCollectorSet(d, name); !errors.Is(err, state.ErrCollectorSetNotFound) {
			if err == nil || errors.As(err, new(*state.SetFileError)) {
				return fail(fmt.Errorf("%q: %w", name, state.ErrCollectorSetExists), d)
			}
		}
	}
	if err := state.CreateCollectorSet(o.UserDir, s, false); err != nil {
		return fail(err, o.UserDir)
	}
	_, err = io.WriteString(o.Stdout, completed)
	return err
}

// EnvLogDir names the environment variable that moves DefaultLogRoot.
const EnvLogDir = "PERFC_LOG_DIR"

// DefaultLogRoot is the directory of a new set's logs when -o does not
// give one (Windows: %systemdrive%\PerfLogs\Admin\NAME): $PERFC_LOG_DIR/NAME
// when that variable holds an absolute path (a service's LogsDirectory, a
// sandbox); else for root (the system sets) /var/log/perfc/NAME; for other users
// $XDG_DATA_HOME/perfc/logs/NAME, where an unset or relative
// XDG_DATA_HOME means $HOME/.local/share as the XDG base-directory
// specification says; with neither, the state directory's logs/NAME.
func DefaultLogRoot(getenv func(string) string, euid int, stateDir, name string) string {
	switch {
	case filepath.IsAbs(getenv(EnvLogDir)):
		return filepath.Join(getenv(EnvLogDir), name)
	case euid == 0:
		return filepath.Join("/var/log/perfc", name)
	case filepath.IsAbs(getenv("XDG_DATA_HOME")):
		return filepath.Join(getenv("XDG_DATA_HOME"), "perfc", "logs", name)
	case filepath.IsAbs(getenv("HOME")):
		return filepath.Join(getenv("HOME"), ".local", "share", "perfc", "logs", name)
	}
	return filepath.Join(stateDir, "logs", name)
}
