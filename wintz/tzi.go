package wintz

import (
	"fmt"
	"strings"
	"time"
)

// Date is a transition date of a TIME_ZONE_INFORMATION (a SYSTEMTIME):
// with Year 0, "the Day-th DayOfWeek of Month at Hour:Minute:Second"
// (Day 5: the last); Month 0 means the zone has no daylight time.
type Date struct {
	Year, Month, DayOfWeek, Day, Hour, Minute, Second uint16
}

// TZI is a Windows TIME_ZONE_INFORMATION, as a BLG carries the zone of
// the machine that wrote it. Biases are minutes west of UTC (UTC = local
// + bias).
type TZI struct {
	Bias                       int32
	StandardName, DaylightName string
	StandardDate, DaylightDate Date
	StandardBias, DaylightBias int32
}

// Location returns a time.Location following the zone's rules, whose
// zone names are the Windows names (as PDH writes them into text logs),
// so that At gives them. A zone whose rule cannot be expressed
// (absolute transition dates, names unusable in a rule) is taken as
// standard time all year.
func (z TZI) Location() *time.Location {
	std, stdOff := z.std()
	rule, ok := z.Rule()
	if !ok {
		return time.FixedZone(std, stdOff)
	}
	loc, err := RuleLocation(std, rule, stdOff, std)
	if err != nil {
		return time.FixedZone(std, stdOff)
	}
	return loc
}

// std is the zone's standard name ("Local" when it has none) and its
// offset in seconds east of UTC.
func (z TZI) std() (string, int) {
	std := z.StandardName
	if std == "" {
		std = "Local"
	}
	return std, int(-(z.Bias + z.StandardBias) * 60)
}

// Rule returns the zone's rules as a POSIX TZ rule
// (`<Eastern Standard Time>5:00<Eastern Daylight Time>4:00,M3.2.0/2:00:00,M11.1.0/2:00:00`),
// what Location follows and what a writer that records rules writes as it
// is, instead of deriving one back from the location. ok is false for a
// zone with no daylight time or whose rule cannot be expressed (absolute
// transition dates, names unusable in a rule): Location is then a fixed
// zone.
func (z TZI) Rule() (rule string, ok bool) {
	std, _ := z.std()
	d, s := z.DaylightDate, z.StandardDate
	if d.Month == 0 || s.Month == 0 || d.Year != 0 || s.Year != 0 || !validRule(d) || !validRule(s) || !tziNameOK(std) || !tziNameOK(z.DaylightName) {
		return "", false
	}
	return fmt.Sprintf("<%s>%s<%s>%s,%s,%s", std, posixOffset(z.Bias+z.StandardBias), z.DaylightName,
		posixOffset(z.Bias+z.DaylightBias), posixDate(d), posixDate(s)), true
}

func validRule(s Date) bool {
	return s.Month >= 1 && s.Month <= 12 && s.Day >= 1 && s.Day <= 5 && s.DayOfWeek <= 6 && s.Hour < 24 && s.Minute < 60
}

// posixOffset writes a bias in minutes west as a POSIX offset.
func posixOffset(bias int32) string {
	sign := ""
	if bias < 0 {
		sign, bias = "-", -bias
	}
	return fmt.Sprintf("%s%d:%02d", sign, bias/60, bias%60)
}

func posixDate(s Date) string {
	return fmt.Sprintf("M%d.%d.%d/%d:%02d:%02d", s.Month, s.Day, s.DayOfWeek, s.Hour, s.Minute, s.Second)
}

// tziNameOK reports a Windows zone name usable inside <...> of the rule
// TZI.Location builds (as BLG readers always took it).
func tziNameOK(s string) bool {
	return s != "" && !strings.ContainsAny(s, "<>\n\x00") && len(s) < 200
}
