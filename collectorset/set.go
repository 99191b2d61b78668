// Package collectorset is the definition of a data collector set, as
// Windows' Performance Logs and Alerts (MS-PLA) models it and logman
// creates it: a DataCollectorSet holding one PerformanceCounterDataCollector
// (the counters, the sample interval, the log format and file naming), its
// segment (rollover) limits, its schedule and its data manager (the
// retention of its log files, datamanager.go). It reads and writes the
// DataCollectorSet XML that `logman export -xml` writes and `logman import
// -xml` reads (xml.go), with Windows' element names, its -1/0 booleans and
// its enum values, so that a set moves between Windows and perfc both ways.
//
// The package holds definitions only. Whether a set is running is not part
// of a definition: Set.Status is filled by whoever knows (the collector
// service) and is never stored. The state package stores definitions; the
// logman tool maps logman's options onto them (options.go holds the
// parsers of the option values both need).
package collectorset

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/counterpath"
)

// LogFileFormat is the format of a counter collector's log (MS-PLA
// FileFormat enumeration, as LogFileFormat in the XML).
type LogFileFormat int

// The log formats, with MS-PLA's values.
const (
	CommaSeparated LogFileFormat = 0 // -f csv
	TabSeparated   LogFileFormat = 1 // -f tsv
	Sql            LogFileFormat = 2 // -f sql
	Binary         LogFileFormat = 3 // -f bin (and bincirc, with LogCircular)
	// BLG is Windows' binary log (-f blg), linear only. MS-PLA has no
	// value of its own for it (Windows' Binary is its BLG, while perfc's
	// Binary is perfc's own log): perfc's sets store 4.
	BLG LogFileFormat = 4
)

// String is the format as `logman query NAME` shows it (File Format).
func (f LogFileFormat) String() string {
	switch f {
	case CommaSeparated:
		return "Comma Separated"
	case TabSeparated:
		return "Tab Separated"
	case Sql:
		return "SQL"
	case Binary:
		return "Binary"
	case BLG:
		return "Binary (Windows BLG)"
	}
	return fmt.Sprintf("LogFileFormat(%d)", int(f))
}

// Extension is the file extension of the format's log files. Our binary
// log keeps its own extension (.plog), not Windows' .blg, because its
// content is not a BLG; SQL logs have no file.
func (f LogFileFormat) Extension() string {
	switch f {
	case CommaSeparated:
		return ".csv"
	case TabSeparated:
		return ".tsv"
	case Binary:
		return ".plog"
	case BLG:
		return ".blg"
	}
	return ""
}

// FileNameFormat says what is appended to a log's file name (MS-PLA
// AutoPathFormat, bit flags; FileNameFormat in the XML).
type FileNameFormat uint32

// The file name formats, with MS-PLA's values.
const (
	FileNameNone               FileNameFormat = 0
	FileNamePattern            FileNameFormat = 0x1
	FileNameComputer           FileNameFormat = 0x2
	FileNameMonthDayHour       FileNameFormat = 0x100  // MMddHH
	FileNameSerialNumber       FileNameFormat = 0x200  // NNNNNN: -v nnnnnn
	FileNameYearDayOfYear      FileNameFormat = 0x400  // yyyyDDD
	FileNameYearMonth          FileNameFormat = 0x800  // yyyyMM
	FileNameYearMonthDay       FileNameFormat = 0x1000 // yyyyMMdd
	FileNameYearMonthDayHour   FileNameFormat = 0x2000 // yyyyMMddHH
	FileNameMonthDayHourMinute FileNameFormat = 0x4000 // MMddHHmm: -v mmddhhmm
)

// Status is a set's state (MS-PLA DataCollectorSetStatus).
type Status int

// The statuses, with MS-PLA's values.
const (
	Stopped   Status = 0
	Running   Status = 1
	Compiling Status = 2
	Pending   Status = 3
	Undefined Status = 4
)

// String is the status as `logman query` shows it.
func (s Status) String() string {
	switch s {
	case Stopped:
		return "Stopped"
	case Running:
		return "Running"
	case Compiling:
		return "Compiling"
	case Pending:
		return "Pending"
	case Undefined:
		return "Undefined"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Days is a schedule's days of the week (MS-PLA WeekDays): Sunday 1 ...
// Saturday 64.
type Days uint32

// Everyday is every day of the week.
const Everyday Days = 127

// Day returns the bit of a weekday.
func Day(d time.Weekday) Days { return 1 << uint(d) }

// Schedule is one start schedule of a set: from StartDate (and until
// EndDate, when not zero) the set starts at StartTime on each of Days.
type Schedule struct {
	StartDate time.Time     // a date (midnight, time.Local); zero: none
	EndDate   time.Time     // the last date the schedule applies; zero: no end
	StartTime time.Duration // the time of day it starts, from midnight
	Days      Days
}

// Start returns the first start the schedule names (its StartDate at
// StartTime), zero when it has no StartDate.
func (s Schedule) Start() time.Time {
	if s.StartDate.IsZero() {
		return time.Time{}
	}
	y, m, d := s.StartDate.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, s.StartDate.Location()).Add(s.StartTime)
}

// DataManager is the data management policy of a set (MS-PLA
// IDataManager): how many of its log files, how old and how large, it
// keeps, and how much disk it leaves free. When Enabled, the collector
// applies it at start and at each new log file (pla, retention); the
// -retain option sets it (Retention, datamanager.go).
type DataManager struct {
	// Enabled turns the policy on; off, the rest is kept and ignored.
	Enabled bool
	// CheckBeforeRunning refuses to start the set when, after the policy
	// deleted what it may, MaxFolderCount or MinFreeDisk is still not met.
	CheckBeforeRunning bool
	// MinFreeDisk is the MB to keep free on the logs' file system,
	// MaxSize the MB the set's logs may take together, MaxFolderCount
	// how many of its log files are kept (Windows: folders); 0: no limit.
	MinFreeDisk, MaxSize, MaxFolderCount uint32
	// ResourcePolicy says which logs go first when a limit is passed.
	ResourcePolicy ResourcePolicy
	// The report, rule and events files are Windows', kept as read.
	ReportFileName, RuleTargetFileName, EventsFileName string
	// FolderActions act on logs of an age and size (MS-PLA
	// IFolderAction): perfc does those that only delete data.
	FolderActions []FolderAction
	// MaxAge deletes logs last written longer ago than this many seconds
	// (perfc's own, for ages that are not whole days: MS-PLA has days
	// only, in FolderAction). The XML carries it as the keyword
	// "perfc:retain-age=N"; 0: none.
	MaxAge uint32
}

// Counters is a set's performance counter collector (MS-PLA
// IPerformanceCounterDataCollector).
type Counters struct {
	Name                  string         // the collector's name; logman names it as the set
	FileName              string         // the log's base name, without extension
	FileNameFormat        FileNameFormat // what is appended to FileName (-v)
	FileNameFormatPattern string
	LogAppend             bool // -a
	LogCircular           bool // -f bincirc
	LogOverwrite          bool // -ow
	DataSourceName        string
	SampleInterval        uint32 // seconds, at least 1 (-si)
	SegmentMaxRecords     uint32 // SQL logs: -max
	LogFileFormat         LogFileFormat
	Counters              []string // counter paths (-c, -cf)
	// MaxSamples ends the collection after this many samples (-sc); 0:
	// no limit. MS-PLA has no element for it: the XML carries it as the
	// keyword "perfc:max-samples=N" (xml.go).
	MaxSamples uint32
}

// Set is a data collector set with its counter collector.
type Set struct {
	Name        string
	Description string
	DisplayName string
	Keywords    []string // other than perfc's own (RunAtBoot, MaxSamples)
	// RootPath is the directory of the set's logs (-o's directory).
	RootPath                  string
	Subdirectory              string
	SubdirectoryFormat        uint32
	SubdirectoryFormatPattern string
	Segment                   bool   // -cnf: start a new file at the limits below
	SegmentMaxDuration        uint32 // seconds (-cnf hh:mm:ss)
	SegmentMaxSize            uint32 // MB (-max)
	SerialNumber              uint32 // the next file's serial number (-v nnnnnn)
	Server                    string // the computer to collect from (-s); empty: this one
	Duration                  uint32 // seconds the set runs once started (-rf, -e); 0: until stopped
	SchedulesEnabled          bool
	Schedules                 []Schedule // -b, -e, -r
	UserAccount               string     // Windows' run-as account (-u); a set runs as the user who owns it
	Security                  string     // Windows' security descriptor (SDDL), kept as read
	Task                      string     // -rc: a command run each time a log is closed
	TaskArguments             string
	TaskRunAsSelf             bool
	StopOnCompletion          bool
	// RunAtBoot: the collector service starts the set when the computer
	// starts (perfc's own, logman has no such option: `perfc logman
	// create counter NAME -boot`). The XML carries it as the keyword
	// "perfc:run-at-boot", which Windows keeps as any other keyword.
	RunAtBoot   bool
	DataManager DataManager
	// Collector is the counter collector of a counter set; an alert set
	// (Alert not nil) has none.
	Collector Counters
	// Alert is the alert collector of an alert set (logman create
	// alert); nil for a counter set.
	Alert *Alerts
	// Status is not part of the definition: it is never stored, and an
	// export writes what the caller filled in (Stopped unless told).
	Status Status
	// PrivateHidden is not part of the definition either: the state
	// directory sets it when the set has private parts (Private) that the
	// reader may not read, which are then left empty.
	PrivateHidden bool
}

// The limits of a set's names and contents.
const (
	// MaxNameLen bounds a set's name, in bytes: it is a file name in the
	// state directory.
	MaxNameLen = 200
	// MinSampleInterval and DefaultSampleInterval are in seconds.
	MinSampleInterval     = 1
	DefaultSampleInterval = 15
	// MaxCounters bounds the counter paths of one collector.
	MaxCounters = 100000
)

// CheckName checks a set's name: not empty, at most MaxNameLen bytes of
// UTF-8 without control characters, without the characters Windows
// refuses in a set's name (\ / : * ? " < > |), not starting with '.' and
// without leading or trailing blanks. Names are compared without regard to
// case, as on Windows (SameName).
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("the name of the Data Collector Set is empty")
	case len(name) > MaxNameLen:
		return fmt.Errorf("set name %.40q... is longer than %d bytes", name, MaxNameLen)
	case !utf8.ValidString(name):
		return fmt.Errorf("set name %q is not valid UTF-8", name)
	case strings.HasPrefix(name, "."):
		return fmt.Errorf("set name %q starts with '.'", name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("set name %q starts or ends with a blank", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("set name %q holds a control character", name)
		}
		if strings.ContainsRune(`\/:*?"<>|`, r) {
			return fmt.Errorf("set name %q holds %q, which a set's name may not hold", name, r)
		}
	}
	return nil
}

// SameName reports whether two set names name the same set: Windows
// compares them without regard to case.
func SameName(a, b string) bool { return strings.EqualFold(a, b) }

// New returns a set named name with logman's defaults: a counter
// collector of the same name, binary format, a sample interval of 15
// seconds, logs in root (the directory, chosen by the caller) named as
// the set.
func New(name, root string) *Set {
	return &Set{
		Name:             name,
		RootPath:         root,
		SerialNumber:     1,
		SchedulesEnabled: true,
		Collector: Counters{
			Name:           name,
			FileName:       name,
			SampleInterval: DefaultSampleInterval,
			LogFileFormat:  Binary,
		},
	}
}

// Validate checks a definition as a whole: its name, its collector's
// interval, format and counter paths, and combinations that cannot work.
// Every problem found is reported, joined.
func (s *Set) Validate() error {
	var errs []error
	if err := CheckName(s.Name); err != nil {
		errs = append(errs, err)
	}
	if s.Alert != nil {
		errs = append(errs, s.Alert.validate(s.Name)...)
		if len(s.Collector.Counters) > 0 {
			errs = append(errs, errors.New("an alert set holds thresholds (-th), not counters to log (-c)"))
		}
		return errors.Join(append(errs, s.validateSchedules()...)...)
	}
	c := &s.Collector
	if c.SampleInterval < MinSampleInterval {
		errs = append(errs, fmt.Errorf("sample interval %d: must be at least %d second", c.SampleInterval, MinSampleInterval))
	}
	switch c.LogFileFormat {
	case CommaSeparated, TabSeparated, Binary:
	case BLG:
		if c.LogAppend {
			errs = append(errs, errors.New("a Windows BLG (-f blg) cannot be appended to (-a): use -f bin, or -ow"))
		}
	case Sql:
		if c.DataSourceName == "" {
			errs = append(errs, errors.New("an SQL log needs a data source: -o SQL:DSN!logset"))
		}
	default:
		errs = append(errs, fmt.Errorf("log file format %d is none of csv (0), tsv (1), sql (2), bin (3), blg (4)", int(c.LogFileFormat)))
	}
	if c.LogCircular && c.LogFileFormat != Binary {
		errs = append(errs, fmt.Errorf("a circular log must be binary (-f bincirc), not %s", c.LogFileFormat))
	}
	if c.LogCircular && s.SegmentMaxSize == 0 {
		errs = append(errs, errors.New("a circular log needs a maximum size (-max)"))
	}
	if c.LogCircular && s.Segment {
		errs = append(errs, errors.New("a circular log cannot also start new files (-cnf)"))
	}
	if c.LogAppend && c.LogOverwrite {
		errs = append(errs, errors.New("-a (append) and -ow (overwrite) exclude each other"))
	}
	if v := c.FileNameFormat; v&^(FileNamePattern|FileNameComputer|FileNameMonthDayHour|FileNameSerialNumber|FileNameYearDayOfYear|
		FileNameYearMonth|FileNameYearMonthDay|FileNameYearMonthDayHour|FileNameMonthDayHourMinute) != 0 {
		errs = append(errs, fmt.Errorf("file name format 0x%x has unknown bits", uint32(v)))
	}
	if len(c.Counters) > MaxCounters {
		errs = append(errs, fmt.Errorf("%d counters: at most %d", len(c.Counters), MaxCounters))
	} else {
		for _, p := range c.Counters {
			if _, err := counterpath.Parse(p); err != nil {
				errs = append(errs, fmt.Errorf("counter %q: %v", p, err))
			}
		}
	}
	errs = append(errs, s.validateSchedules()...)
	return errors.Join(errs...)
}

// validateSchedules checks the set's schedules.
func (s *Set) validateSchedules() []error {
	var errs []error
	for i, sc := range s.Schedules {
		if sc.Days&^Everyday != 0 {
			errs = append(errs, fmt.Errorf("schedule %d: days 0x%x name no weekday (Sunday 1 ... Saturday 64)", i+1, uint32(sc.Days)))
		}
		if sc.StartTime < 0 || sc.StartTime >= 24*time.Hour {
			errs = append(errs, fmt.Errorf("schedule %d: start time %v is not a time of day", i+1, sc.StartTime))
		}
		if !sc.EndDate.IsZero() && !sc.StartDate.IsZero() && sc.EndDate.Before(sc.StartDate) {
			errs = append(errs, fmt.Errorf("schedule %d: ends (%s) before it starts (%s)", i+1, sc.EndDate.Format(dateLayout), sc.StartDate.Format(dateLayout)))
		}
	}
	return errs
}

// Clone returns a deep copy of s.
func (s *Set) Clone() *Set {
	c := *s
	c.Keywords = append([]string(nil), s.Keywords...)
	c.Schedules = append([]Schedule(nil), s.Schedules...)
	c.Collector.Counters = append([]string(nil), s.Collector.Counters...)
	if s.Alert != nil {
		a := *s.Alert
		a.Thresholds = append([]string(nil), s.Alert.Thresholds...)
		c.Alert = &a
	}
	c.DataManager.FolderActions = append([]FolderAction(nil), s.DataManager.FolderActions...)
	return &c
}

// NewAlert returns an alert set named name with logman's defaults: an
// alert collector of the same name, a sample interval of 15 seconds, and
// no log (its state and events are kept in its owner's state directory).
func NewAlert(name string) *Set {
	return &Set{
		Name:             name,
		SerialNumber:     1,
		SchedulesEnabled: true,
		Alert:            &Alerts{Name: name, SampleInterval: DefaultSampleInterval},
	}
}

// Type is the set's collector type as `logman query` shows it: Counter or
// Alert.
func (s *Set) Type() string {
	if s.Alert != nil {
		return "Alert"
	}
	return "Counter"
}

// Interval is the sample interval of the set's collector, in seconds.
func (s *Set) Interval() uint32 {
	if s.Alert != nil {
		return s.Alert.SampleInterval
	}
	return s.Collector.SampleInterval
}

// OutputLocation is where the set's next log goes, as `logman query NAME`
// shows it (Output Location): RootPath, the file name with what the file
// name format adds for the next file (the serial number, or the time t),
// and the format's extension. An SQL log is shown as SQL:DSN!logset, its
// password redacted (RedactDSN).
func (s *Set) OutputLocation(t time.Time) string {
	if s.Alert != nil {
		return "" // an alert set writes no log
	}
	c := &s.Collector
	if c.LogFileFormat == Sql {
		return "SQL:" + RedactDSN(c.DataSourceName) + "!" + c.FileName
	}
	name := c.FileName
	if name == "" {
		name = s.Name
	}
	switch {
	case c.FileNameFormat&FileNameSerialNumber != 0:
		name += fmt.Sprintf("_%06d", max(s.SerialNumber, 1))
	case c.FileNameFormat&FileNameMonthDayHourMinute != 0:
		name += "_" + t.Format("01021504")
	case c.FileNameFormat&FileNameMonthDayHour != 0:
		name += "_" + t.Format("010215")
	}
	root := strings.TrimRight(s.RootPath, "/")
	if root == "" {
		return name + c.LogFileFormat.Extension()
	}
	return root + "/" + name + c.LogFileFormat.Extension()
}
