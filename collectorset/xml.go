package collectorset

// The DataCollectorSet XML of MS-PLA (§3.2.4.19), as `logman export -xml`
// writes it and `logman import -xml` reads it. Booleans are -1 (true) and
// 0, enumerations are their numbers, durations are seconds, sizes are MB.

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/utf16le"
)

// MaxXMLSize bounds a DataCollectorSet XML file, in bytes as stored (UTF-16
// doubles a file's size): a larger file is refused before it is read.
const MaxXMLSize = 16 << 20

// maxDepth bounds the nesting of elements read.
const maxDepth = 32

// perfc's own keywords: what MS-PLA has no element for travels as a
// keyword, which Windows keeps as it keeps any other.
const (
	keywordRunAtBoot  = "perfc:run-at-boot"
	keywordMaxSamples = "perfc:max-samples="
	// An alert collector's settings of perfc's own (Alerts).
	keywordAlertHold     = "perfc:alert-hold="
	keywordAlertHyst     = "perfc:alert-hysteresis="
	keywordAlertOnChange = "perfc:alert-onchange"
	keywordAlertInterval = "perfc:alert-action-interval="
	keywordRetainAge     = "perfc:retain-age="
)

// maxFolderActions bounds the FolderAction elements of one DataManager.
const maxFolderActions = 1024

// The forms of dates and times in the XML's Schedule: written in the first
// form, read in any.
const (
	dateLayout = "1/2/2006"
	timeLayout = "3:04:05 PM"
)

var (
	dateLayouts = []string{dateLayout, "2006-01-02", "2006-01-02T15:04:05", "1/2/2006 3:04:05 PM", "1/2/2006 15:04:05"}
	clockLayout = []string{timeLayout, "3:04:05PM", "15:04:05", "3:04 PM", "15:04", "1/2/2006 3:04:05 PM", "1/2/2006 15:04:05", "2006-01-02T15:04:05"}
)

// XMLError is a DataCollectorSet XML that could not be read: the file, the
// line and element where, and what was wrong.
type XMLError struct {
	File    string // as the caller named it
	Line    int    // 1-based; 0 when unknown
	Element string // the element path, e.g. DataCollectorSet/SampleInterval; empty when none
	Err     error
}

func (e *XMLError) Error() string {
	var b strings.Builder
	b.WriteString("Data Collector Set XML " + e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ", line %d", e.Line)
	}
	if e.Element != "" {
		b.WriteString(", element " + e.Element)
	}
	b.WriteString(": " + e.Err.Error())
	return b.String()
}

func (e *XMLError) Unwrap() error { return e.Err }

// DecodeText turns the bytes of an XML file into UTF-8: UTF-16 (little or
// big endian) with a byte-order mark, as Windows writes its exports,
// UTF-16 without one (recognised by its first character '<' or a blank),
// and UTF-8 with or without a mark (utf16le.Text).
func DecodeText(b []byte) ([]byte, error) {
	s, err := utf16le.Text(b)
	return []byte(s), err
}

// ReadXML reads a DataCollectorSet XML from r (at most MaxXMLSize bytes);
// file names it in errors.
func ReadXML(r io.Reader, file string) (*Set, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxXMLSize+1))
	if err != nil {
		return nil, &XMLError{File: file, Err: err}
	}
	return ParseXML(b, file)
}

// ParseXML reads a DataCollectorSet XML holding one performance counter
// collector. Elements it does not know are skipped, as Windows skips
// them; a value that is not what its element holds, a second counter
// collector, a collector of another kind, or malformed XML is an
// *XMLError naming the line and element. The set's Status is read as
// written.
func ParseXML(data []byte, file string) (*Set, error) {
	if len(data) > MaxXMLSize {
		return nil, &XMLError{File: file, Err: fmt.Errorf("larger than %d bytes", MaxXMLSize)}
	}
	text, err := DecodeText(data)
	if err != nil {
		return nil, &XMLError{File: file, Err: err}
	}
	p := parser{file: file, set: &Set{}}
	if err := p.parse(text); err != nil {
		return nil, err
	}
	if !p.root {
		return nil, &XMLError{File: file, Err: errors.New("no DataCollectorSet element")}
	}
	if !p.collector && p.set.Alert == nil {
		return nil, &XMLError{File: file, Element: "DataCollectorSet", Err: errors.New("no PerformanceCounterDataCollector or AlertDataCollector: perfc's sets are counter and alert sets")}
	}
	if err := p.alertKeywords(); err != nil {
		return nil, &XMLError{File: file, Element: "DataCollectorSet/Keyword", Err: err}
	}
	return p.set, nil
}

// parser reads the elements of one DataCollectorSet.
type parser struct {
	file      string
	set       *Set
	root      bool // DataCollectorSet seen
	collector bool // PerformanceCounterDataCollector seen
	schedule  *Schedule
	folder    *FolderAction // the FolderAction being read
	// alertKW are the keywords of an alert collector's perfc settings,
	// applied once the whole set is read (they come before it).
	alertKW []string
}

// alertKeywords applies perfc's alert keywords to the alert collector;
// a set without one keeps them as plain keywords.
func (p *parser) alertKeywords() error {
	a := p.set.Alert
	for _, k := range p.alertKW {
		if a == nil {
			p.set.Keywords = append(p.set.Keywords, k)
			continue
		}
		var err error
		switch {
		case k == keywordAlertOnChange:
			a.OnChange = true
		case strings.HasPrefix(k, keywordAlertHold):
			err = parseInto(&a.Hold, strings.TrimPrefix(k, keywordAlertHold))
		case strings.HasPrefix(k, keywordAlertInterval):
			err = parseInto(&a.ActionInterval, strings.TrimPrefix(k, keywordAlertInterval))
		case strings.HasPrefix(k, keywordAlertHyst):
			v := strings.TrimPrefix(k, keywordAlertHyst)
			a.Hysteresis, err = strconv.ParseFloat(v, 64)
			if err != nil || a.Hysteresis < 0 || a.Hysteresis != a.Hysteresis {
				err = fmt.Errorf("%q: hysteresis %q is not a number of at least 0", k, v)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type level struct {
	name     string
	line     int
	hasChild bool
}

func (p *parser) parse(text []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(text))
	// The text is UTF-8 now, whatever the declaration says.
	dec.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-16", "utf-16le", "utf-16be", "unicode", "utf-8", "us-ascii", "ascii":
			return r, nil
		}
		return nil, fmt.Errorf("encoding %q: want UTF-8 or UTF-16", label)
	}
	var stack []level
	var txt strings.Builder
	for {
		line, _ := dec.InputPos()
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) > 0 {
				return &XMLError{File: p.file, Line: line, Element: path(stack), Err: errors.New("the file ends inside the element")}
			}
			return nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				if se.Msg == "unexpected EOF" {
					se.Msg = "the file ends inside the element"
				}
				return &XMLError{File: p.file, Line: se.Line, Element: path(stack), Err: errors.New(se.Msg)}
			}
			return &XMLError{File: p.file, Line: line, Element: path(stack), Err: err}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			line, _ = dec.InputPos()
			if len(stack) > 0 {
				stack[len(stack)-1].hasChild = true
			}
			stack = append(stack, level{name: t.Name.Local, line: line})
			if len(stack) > maxDepth {
				return &XMLError{File: p.file, Line: line, Element: path(stack), Err: fmt.Errorf("elements nested deeper than %d", maxDepth)}
			}
			txt.Reset()
			if err := p.start(stack); err != nil {
				return &XMLError{File: p.file, Line: line, Element: path(stack), Err: err}
			}
		case xml.CharData:
			if len(stack) > 0 && !stack[len(stack)-1].hasChild {
				txt.Write(t)
			}
		case xml.EndElement:
			top := stack[len(stack)-1]
			if !top.hasChild {
				if err := p.leaf(stack, strings.TrimSpace(txt.String())); err != nil {
					return &XMLError{File: p.file, Line: top.line, Element: path(stack), Err: err}
				}
			}
			if err := p.end(stack); err != nil {
				return &XMLError{File: p.file, Line: top.line, Element: path(stack), Err: err}
			}
			stack = stack[:len(stack)-1]
			txt.Reset()
		}
	}
}

func path(stack []level) string {
	names := make([]string, len(stack))
	for i, l := range stack {
		names[i] = l.name
	}
	return strings.Join(names, "/")
}

// collectorElements are MS-PLA's collectors other than the counter
// collector: a set holding one cannot be represented here.
var collectorElements = map[string]string{
	"TraceDataCollector":         "trace",
	"ConfigurationDataCollector": "configuration",
	"ApiTracingDataCollector":    "API tracing",
}

func (p *parser) start(stack []level) error {
	switch len(stack) {
	case 1:
		if stack[0].name != "DataCollectorSet" {
			return fmt.Errorf("the document is a %s, not a DataCollectorSet", stack[0].name)
		}
		p.root = true
	case 2:
		name := stack[1].name
		switch name {
		case "PerformanceCounterDataCollector":
			if p.collector {
				return errors.New("a second PerformanceCounterDataCollector: perfc's sets hold one counter collector")
			}
			if p.set.Alert != nil {
				return errors.New("a PerformanceCounterDataCollector beside an AlertDataCollector: perfc's sets hold one collector (make two sets)")
			}
			p.collector = true
		case "AlertDataCollector":
			if p.set.Alert != nil {
				return errors.New("a second AlertDataCollector: perfc's alert sets hold one alert collector")
			}
			if p.collector {
				return errors.New("an AlertDataCollector beside a PerformanceCounterDataCollector: perfc's sets hold one collector (make two sets)")
			}
			p.set.Alert = &Alerts{}
		case "Schedule":
			p.set.Schedules = append(p.set.Schedules, Schedule{})
			p.schedule = &p.set.Schedules[len(p.set.Schedules)-1]
		}
		if kind, ok := collectorElements[name]; ok {
			return fmt.Errorf("a %s collector: perfc's sets hold one performance counter collector and nothing else", kind)
		}
	}
	if isFolderAction(stack) {
		m := &p.set.DataManager
		if len(m.FolderActions) >= maxFolderActions {
			return fmt.Errorf("more than %d folder actions", maxFolderActions)
		}
		m.FolderActions = append(m.FolderActions, FolderAction{})
		p.folder = &m.FolderActions[len(m.FolderActions)-1]
	}
	return nil
}

// isFolderAction reports whether the element on top of stack is a
// FolderAction of the DataManager: DataManager/FolderAction, as MS-PLA
// documents it, or inside a FolderActions list.
func isFolderAction(stack []level) bool {
	switch {
	case len(stack) == 3:
		return stack[1].name == "DataManager" && stack[2].name == "FolderAction"
	case len(stack) == 4:
		return stack[1].name == "DataManager" && stack[2].name == "FolderActions" && stack[3].name == "FolderAction"
	}
	return false
}

func (p *parser) end(stack []level) error {
	if len(stack) == 2 && stack[1].name == "Schedule" {
		p.schedule = nil
	}
	if isFolderAction(stack) {
		p.folder = nil
	}
	return nil
}

// leaf stores the value of an element without children.
func (p *parser) leaf(stack []level, v string) error {
	s := p.set
	switch len(stack) {
	case 2:
		switch stack[1].name {
		case "Status":
			n, err := parseUint(v)
			s.Status = Status(n)
			return err
		case "Keyword":
			return p.keyword(v)
		case "Duration":
			return parseInto(&s.Duration, v)
		case "Description":
			s.Description = v
		case "DisplayName":
			s.DisplayName = v
		case "SchedulesEnabled":
			return parseBool(&s.SchedulesEnabled, v)
		case "Name":
			s.Name = v
		case "RootPath":
			s.RootPath = v
		case "Segment":
			return parseBool(&s.Segment, v)
		case "SegmentMaxDuration":
			return parseInto(&s.SegmentMaxDuration, v)
		case "SegmentMaxSize":
			return parseInto(&s.SegmentMaxSize, v)
		case "SerialNumber":
			return parseInto(&s.SerialNumber, v)
		case "Server":
			s.Server = v
		case "Subdirectory":
			s.Subdirectory = v
		case "SubdirectoryFormat":
			return parseInto(&s.SubdirectoryFormat, v)
		case "SubdirectoryFormatPattern":
			s.SubdirectoryFormatPattern = v
		case "Task":
			s.Task = v
		case "TaskRunAsSelf":
			return parseBool(&s.TaskRunAsSelf, v)
		case "TaskArguments":
			s.TaskArguments = v
		case "UserAccount":
			s.UserAccount = v
		case "Security":
			s.Security = v
		case "StopOnCompletion":
			return parseBool(&s.StopOnCompletion, v)
		case "Schedule":
			// An empty schedule: kept as it is.
		}
	case 3:
		switch stack[1].name {
		case "Schedule":
			return p.scheduleLeaf(stack[2].name, v)
		case "PerformanceCounterDataCollector":
			return p.collectorLeaf(stack[2].name, v)
		case "AlertDataCollector":
			return p.alertLeaf(stack[2].name, v)
		case "DataManager":
			return p.dataManagerLeaf(stack[2].name, v)
		}
	}
	if p.folder != nil && isFolderAction(stack[:len(stack)-1]) {
		return p.folderActionLeaf(stack[len(stack)-1].name, v)
	}
	return nil
}

func (p *parser) folderActionLeaf(name, v string) error {
	a := p.folder
	switch name {
	case "Age":
		return parseInto(&a.Age, v)
	case "Size":
		return parseInto(&a.Size, v)
	case "Actions":
		var n uint32
		err := parseInto(&n, v)
		a.Actions = FolderActionSteps(n)
		return err
	case "SendCabTo":
		a.SendCabTo = v
	}
	return nil
}

func (p *parser) keyword(v string) error {
	s := p.set
	switch {
	case v == keywordRunAtBoot:
		s.RunAtBoot = true
	case strings.HasPrefix(v, keywordMaxSamples):
		return parseInto(&s.Collector.MaxSamples, strings.TrimPrefix(v, keywordMaxSamples))
	case v == keywordAlertOnChange, strings.HasPrefix(v, keywordAlertHold), strings.HasPrefix(v, keywordAlertHyst),
		strings.HasPrefix(v, keywordAlertInterval):
		if len(p.alertKW) < 16 {
			p.alertKW = append(p.alertKW, v)
		}
	case strings.HasPrefix(v, keywordRetainAge):
		return parseInto(&s.DataManager.MaxAge, strings.TrimPrefix(v, keywordRetainAge))
	default:
		s.Keywords = append(s.Keywords, v)
	}
	return nil
}

func (p *parser) scheduleLeaf(name, v string) error {
	sc := p.schedule
	switch name {
	case "StartDate":
		return parseDate(&sc.StartDate, v)
	case "EndDate":
		return parseDate(&sc.EndDate, v)
	case "StartTime":
		if v == "" {
			return nil
		}
		for _, l := range clockLayout {
			if t, err := time.Parse(l, strings.ToUpper(v)); err == nil {
				sc.StartTime = TimeOfDay(t)
				return nil
			}
		}
		return fmt.Errorf("time %q: want h:mm:ss AM|PM", v)
	case "Days":
		var d uint32
		err := parseInto(&d, v)
		sc.Days = Days(d)
		return err
	}
	return nil
}

func (p *parser) collectorLeaf(name, v string) error {
	c := &p.set.Collector
	switch name {
	case "DataCollectorType":
		n, err := parseUint(v)
		if err != nil {
			return err
		}
		if n != 0 {
			return fmt.Errorf("collector type %d in a PerformanceCounterDataCollector: want 0 (performance counter)", n)
		}
	case "Name":
		c.Name = v
	case "FileName":
		c.FileName = v
	case "FileNameFormat":
		var n uint32
		err := parseInto(&n, v)
		c.FileNameFormat = FileNameFormat(n)
		return err
	case "FileNameFormatPattern":
		c.FileNameFormatPattern = v
	case "LogAppend":
		return parseBool(&c.LogAppend, v)
	case "LogCircular":
		return parseBool(&c.LogCircular, v)
	case "LogOverwrite":
		return parseBool(&c.LogOverwrite, v)
	case "DataSourceName":
		c.DataSourceName = v
	case "SampleInterval":
		return parseInto(&c.SampleInterval, v)
	case "SegmentMaxRecords":
		return parseInto(&c.SegmentMaxRecords, v)
	case "LogFileFormat":
		n, err := parseUint(v)
		if err != nil {
			return err
		}
		if n > uint32(BLG) {
			return fmt.Errorf("log file format %d: want 0 (CSV), 1 (TSV), 2 (SQL), 3 (binary) or 4 (Windows BLG)", n)
		}
		c.LogFileFormat = LogFileFormat(n)
	case "Counter":
		if len(c.Counters) >= MaxCounters {
			return fmt.Errorf("more than %d counters", MaxCounters)
		}
		if v != "" {
			c.Counters = append(c.Counters, v)
		}
	}
	return nil
}

func (p *parser) alertLeaf(name, v string) error {
	a := p.set.Alert
	switch name {
	case "DataCollectorType":
		n, err := parseUint(v)
		if err != nil {
			return err
		}
		if n != 3 {
			return fmt.Errorf("collector type %d in an AlertDataCollector: want 3 (alert)", n)
		}
	case "Name":
		a.Name = v
	case "Alert":
		if len(a.Thresholds) >= MaxThresholds {
			return fmt.Errorf("more than %d alert thresholds", MaxThresholds)
		}
		if v != "" {
			a.Thresholds = append(a.Thresholds, v)
		}
	case "EventLog":
		return parseBool(&a.EventLog, v)
	case "SampleInterval":
		return parseInto(&a.SampleInterval, v)
	case "Task":
		a.Task = v
	case "TaskArguments":
		a.TaskArguments = v
	case "TaskUserTextArguments":
		a.TaskUserTextArguments = v
	case "TaskRunAsSelf":
		return parseBool(&a.TaskRunAsSelf, v)
	case "TriggerDataCollectorSet":
		a.TriggerDataCollectorSet = v
	}
	return nil
}

func (p *parser) dataManagerLeaf(name, v string) error {
	m := &p.set.DataManager
	switch name {
	case "Enabled":
		return parseBool(&m.Enabled, v)
	case "CheckBeforeRunning":
		return parseBool(&m.CheckBeforeRunning, v)
	case "MinFreeDisk":
		return parseInto(&m.MinFreeDisk, v)
	case "MaxSize":
		return parseInto(&m.MaxSize, v)
	case "MaxFolderCount":
		return parseInto(&m.MaxFolderCount, v)
	case "ResourcePolicy":
		var n uint32
		err := parseInto(&n, v)
		m.ResourcePolicy = ResourcePolicy(n)
		return err
	case "ReportFileName":
		m.ReportFileName = v
	case "RuleTargetFileName":
		m.RuleTargetFileName = v
	case "EventsFileName":
		m.EventsFileName = v
	}
	return nil
}

// parseUint reads an unsigned 32-bit number: decimal, or hexadecimal with
// 0x. Empty is 0.
func parseUint(v string) (uint32, error) {
	if v == "" {
		return 0, nil
	}
	base := 10
	digits := v
	if h, ok := strings.CutPrefix(strings.ToLower(v), "0x"); ok {
		base, digits = 16, h
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return 0, fmt.Errorf("value %q is not a number from 0 to 4294967295", v)
	}
	return uint32(n), nil
}

func parseInto(dst *uint32, v string) error {
	n, err := parseUint(v)
	if err == nil {
		*dst = n
	}
	return err
}

// parseBool reads an MS-PLA boolean: -1 (or any other non-zero number)
// true, 0 false; "true" and "false" are accepted as well. Empty is false.
func parseBool(dst *bool, v string) error {
	switch strings.ToLower(v) {
	case "", "0", "false":
		*dst = false
		return nil
	case "-1", "true":
		*dst = true
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return fmt.Errorf("value %q is not a boolean (-1 or 0)", v)
	}
	*dst = n != 0
	return nil
}

func parseDate(dst *time.Time, v string) error {
	if v == "" {
		*dst = time.Time{}
		return nil
	}
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l, strings.ToUpper(v), time.Local); err == nil {
			*dst = DateOf(t)
			return nil
		}
	}
	return fmt.Errorf("date %q: want M/d/yyyy", v)
}

// XML writes s as a DataCollectorSet XML, every element Windows
// reads in the order Windows writes them, UTF-8 with an XML declaration.
// Its Status is written as it is in s.
func (s *Set) XML() []byte {
	w := &xmlWriter{}
	w.b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DataCollectorSet>\n")
	w.num("Status", uint32(s.Status))
	w.num("Duration", s.Duration)
	w.text("Description", s.Description)
	w.text("DisplayName", s.DisplayName)
	w.flag("SchedulesEnabled", s.SchedulesEnabled)
	for _, k := range s.Keywords {
		w.text("Keyword", k)
	}
	if s.RunAtBoot {
		w.text("Keyword", keywordRunAtBoot)
	}
	if s.Collector.MaxSamples > 0 {
		w.text("Keyword", keywordMaxSamples+strconv.FormatUint(uint64(s.Collector.MaxSamples), 10))
	}
	if a := s.Alert; a != nil {
		if a.Hold > 0 {
			w.text("Keyword", keywordAlertHold+strconv.FormatUint(uint64(a.Hold), 10))
		}
		if a.Hysteresis > 0 {
			w.text("Keyword", keywordAlertHyst+strconv.FormatFloat(a.Hysteresis, 'g', -1, 64))
		}
		if a.OnChange {
			w.text("Keyword", keywordAlertOnChange)
		}
		if a.ActionInterval > 0 {
			w.text("Keyword", keywordAlertInterval+strconv.FormatUint(uint64(a.ActionInterval), 10))
		}
	}
	if s.DataManager.MaxAge > 0 {
		w.text("Keyword", keywordRetainAge+strconv.FormatUint(uint64(s.DataManager.MaxAge), 10))
	}
	for _, sc := range s.Schedules {
		w.b.WriteString("<Schedule>\n")
		w.text("StartDate", formatDate(sc.StartDate))
		w.text("EndDate", formatDate(sc.EndDate))
		w.text("StartTime", time.Time{}.Add(sc.StartTime).Format(timeLayout))
		w.num("Days", uint32(sc.Days))
		w.b.WriteString("</Schedule>\n")
	}
	w.text("LatestOutputLocation", "")
	w.text("Name", s.Name)
	// OutputLocation is computed, never read; a name by date depends on
	// when the file starts, so it is left empty then.
	loc := ""
	if s.Collector.FileNameFormat&(FileNameMonthDayHour|FileNameMonthDayHourMinute) == 0 {
		loc = s.OutputLocation(time.Time{})
	}
	w.text("OutputLocation", loc)
	w.text("RootPath", s.RootPath)
	w.flag("Segment", s.Segment)
	w.num("SegmentMaxDuration", s.SegmentMaxDuration)
	w.num("SegmentMaxSize", s.SegmentMaxSize)
	w.num("SerialNumber", s.SerialNumber)
	w.text("Server", s.Server)
	w.text("Subdirectory", s.Subdirectory)
	w.num("SubdirectoryFormat", s.SubdirectoryFormat)
	w.text("SubdirectoryFormatPattern", s.SubdirectoryFormatPattern)
	w.text("Task", s.Task)
	w.flag("TaskRunAsSelf", s.TaskRunAsSelf)
	w.text("TaskArguments", s.TaskArguments)
	w.text("UserAccount", s.UserAccount)
	w.text("Security", s.Security)
	w.flag("StopOnCompletion", s.StopOnCompletion)
	if a := s.Alert; a != nil {
		w.alert(a)
	} else {
		w.counters(&s.Collector)
	}
	m := &s.DataManager
	w.b.WriteString("<DataManager>\n")
	w.flag("Enabled", m.Enabled)
	w.flag("CheckBeforeRunning", m.CheckBeforeRunning)
	w.num("MinFreeDisk", m.MinFreeDisk)
	w.num("MaxSize", m.MaxSize)
	w.num("MaxFolderCount", m.MaxFolderCount)
	w.num("ResourcePolicy", uint32(m.ResourcePolicy))
	w.text("ReportFileName", m.ReportFileName)
	w.text("RuleTargetFileName", m.RuleTargetFileName)
	w.text("EventsFileName", m.EventsFileName)
	for _, a := range m.FolderActions {
		w.b.WriteString("<FolderAction>\n")
		w.num("Age", a.Age)
		w.num("Size", a.Size)
		w.num("Actions", uint32(a.Actions))
		w.text("SendCabTo", a.SendCabTo)
		w.b.WriteString("</FolderAction>\n")
	}
	w.b.WriteString("</DataManager>\n")
	w.b.WriteString("</DataCollectorSet>\n")
	return []byte(w.b.String())
}

// counters writes a PerformanceCounterDataCollector.
func (w *xmlWriter) counters(c *Counters) {
	w.b.WriteString("<PerformanceCounterDataCollector>\n")
	w.num("DataCollectorType", 0)
	w.text("Name", c.Name)
	w.text("FileName", c.FileName)
	w.num("FileNameFormat", uint32(c.FileNameFormat))
	w.text("FileNameFormatPattern", c.FileNameFormatPattern)
	w.flag("LogAppend", c.LogAppend)
	w.flag("LogCircular", c.LogCircular)
	w.flag("LogOverwrite", c.LogOverwrite)
	w.text("LatestOutputLocation", "")
	w.text("DataSourceName", c.DataSourceName)
	w.num("SampleInterval", c.SampleInterval)
	w.num("SegmentMaxRecords", c.SegmentMaxRecords)
	w.num("LogFileFormat", uint32(c.LogFileFormat))
	for _, p := range c.Counters {
		w.text("Counter", p)
	}
	for _, p := range c.Counters {
		w.text("CounterDisplayName", p)
	}
	w.b.WriteString("</PerformanceCounterDataCollector>\n")
}

// alert writes an AlertDataCollector: the elements of IDataCollector
// Windows writes for every collector, then the alert's.
func (w *xmlWriter) alert(a *Alerts) {
	w.b.WriteString("<AlertDataCollector>\n")
	w.num("DataCollectorType", 3)
	w.text("Name", a.Name)
	w.text("FileName", a.Name)
	w.num("FileNameFormat", 0)
	w.text("FileNameFormatPattern", "")
	w.flag("LogAppend", false)
	w.flag("LogCircular", false)
	w.flag("LogOverwrite", false)
	w.text("LatestOutputLocation", "")
	for _, t := range a.Thresholds {
		w.text("Alert", t)
	}
	for _, t := range a.Thresholds {
		w.text("AlertDisplayName", t)
	}
	w.flag("EventLog", a.EventLog)
	w.num("SampleInterval", a.SampleInterval)
	w.text("Task", a.Task)
	w.text("TaskArguments", a.TaskArguments)
	w.flag("TaskRunAsSelf", a.TaskRunAsSelf)
	w.text("TaskUserTextArguments", a.TaskUserTextArguments)
	w.text("TriggerDataCollectorSet", a.TriggerDataCollectorSet)
	w.b.WriteString("</AlertDataCollector>\n")
}

func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	// Not t.Format(dateLayout): a year before 1000 must keep four digits
	// to be read again.
	return fmt.Sprintf("%d/%d/%04d", int(t.Month()), t.Day(), t.Year())
}

type xmlWriter struct{ b strings.Builder }

func (w *xmlWriter) text(name, v string) {
	w.b.WriteString("<" + name + ">")
	xml.EscapeText(&w.b, []byte(v))
	w.b.WriteString("</" + name + ">\n")
}

func (w *xmlWriter) num(name string, v uint32) {
	w.text(name, strconv.FormatUint(uint64(v), 10))
}

func (w *xmlWriter) flag(name string, v bool) {
	if v {
		w.text(name, "-1")
	} else {
		w.text(name, "0")
	}
}

// EncodeUTF16 returns UTF-8 text as UTF-16LE with a byte-order mark, as
// Windows writes its XML exports (the declaration then says UTF-16).
func EncodeUTF16(text []byte) []byte {
	s := strings.Replace(string(text), `encoding="UTF-8"`, `encoding="UTF-16"`, 1)
	u := utf16.Encode([]rune(s))
	out := make([]byte, 2, 2+2*len(u))
	out[0], out[1] = 0xFF, 0xFE
	for _, c := range u {
		out = append(out, byte(c), byte(c>>8))
	}
	return out
}
