package collectorset

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseSeconds reads a duration as logman's -si, -rf and -cnf take it:
// [[hh:]mm:]ss, each part a decimal number ("15", "1:30", "01:00:00",
// "90" seconds). The result is in seconds; more than MaxUint32 seconds is
// an error.
func ParseSeconds(s string) (uint32, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) > 3 || s == "" {
		return 0, fmt.Errorf("duration %q: want [[hh:]mm:]ss", s)
	}
	var total uint64
	for _, p := range parts {
		if p == "" || len(p) > 10 {
			return 0, fmt.Errorf("duration %q: want [[hh:]mm:]ss", s)
		}
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("duration %q: want [[hh:]mm:]ss", s)
		}
		total = total*60 + n
		if total > math.MaxUint32 {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
	}
	return uint32(total), nil
}

// FormatSeconds writes seconds as hh:mm:ss, the inverse of ParseSeconds
// for the durations logman shows.
func FormatSeconds(sec uint32) string {
	return fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
}

// ParseFormat reads -f's value, case-insensitively: bin, bincirc, blg,
// csv, tsv or sql. bincirc is the binary format with a circular log; blg
// is Windows' binary log, which is written linear only (blgcirc is
// refused: Windows' circular form is not known well enough to write).
func ParseFormat(s string) (f LogFileFormat, circular bool, err error) {
	switch strings.ToLower(s) {
	case "bin":
		return Binary, false, nil
	case "bincirc":
		return Binary, true, nil
	case "csv":
		return CommaSeparated, false, nil
	case "tsv":
		return TabSeparated, false, nil
	case "sql":
		return Sql, false, nil
	case "blg":
		return BLG, false, nil
	case "blgcirc":
		return 0, false, fmt.Errorf("log format %q: a circular Windows BLG cannot be written faithfully (how Windows wraps one is not known: perflog/blg/FORMAT.md section 8); use bincirc, perfc's circular log, and relog it to -f blg", s)
	}
	return 0, false, fmt.Errorf("log format %q: want bin, bincirc, blg, csv, tsv or sql", s)
}

// FormatName is -f's spelling of a collector's format.
func FormatName(f LogFileFormat, circular bool) string {
	switch {
	case f == Binary && circular:
		return "bincirc"
	case f == Binary:
		return "bin"
	case f == BLG:
		return "blg"
	case f == CommaSeparated:
		return "csv"
	case f == TabSeparated:
		return "tsv"
	case f == Sql:
		return "sql"
	}
	return fmt.Sprint(int(f))
}

// ParseVersion reads -v's value, case-insensitively: nnnnnn (a serial
// number) or mmddhhmm (month, day, hour and minute).
func ParseVersion(s string) (FileNameFormat, error) {
	switch strings.ToLower(s) {
	case "nnnnnn":
		return FileNameSerialNumber, nil
	case "mmddhhmm":
		return FileNameMonthDayHourMinute, nil
	}
	return 0, fmt.Errorf("version format %q: want nnnnnn or mmddhhmm", s)
}

// timeLayouts are the forms of -b and -e: M/d/yyyy h:mm:ss[AM|PM] as
// logman documents it, with or without a blank before AM/PM, and the
// 24-hour form.
var timeLayouts = []string{
	"1/2/2006 3:04:05PM", "1/2/2006 3:04:05 PM", "1/2/2006 3:04PM", "1/2/2006 3:04 PM",
	"1/2/2006 15:04:05", "1/2/2006 15:04",
}

// ParseTime reads a -b or -e date and time in loc.
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, u, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want M/d/yyyy h:mm:ss[AM|PM]", s)
}

// DateOf returns the midnight that starts t's day, in t's location.
func DateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// TimeOfDay returns how long after its midnight t is.
func TimeOfDay(t time.Time) time.Duration {
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second
}
