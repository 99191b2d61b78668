package blg

import (
	"encoding/binary"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/utf16le"
	"github.com/perfcounters/perfcounters/wintz"
)

// Zone is the TIME_ZONE_INFORMATION of the machine that wrote the log.
// Biases are minutes west of UTC (UTC = local + bias). The dates are
// TIME_ZONE_INFORMATION's transition rules: Month 0 means no daylight time;
// Year 0 means "the Day-th DayOfWeek of Month" (Day 5: the last).
type Zone struct {
	Bias                       int32
	StandardName, DaylightName string
	StandardDate, DaylightDate perfdata.SystemTime
	StandardBias, DaylightBias int32
}

// parseTZI decodes a 172-byte TIME_ZONE_INFORMATION.
func parseTZI(b []byte) Zone {
	st := func(p []byte) perfdata.SystemTime {
		u := func(i int) uint16 { return binary.LittleEndian.Uint16(p[2*i:]) }
		return perfdata.SystemTime{Year: u(0), Month: u(1), DayOfWeek: u(2), Day: u(3), Hour: u(4), Minute: u(5), Second: u(6), Milliseconds: u(7)}
	}
	name := func(p []byte) string {
		if n := utf16le.IndexNUL(p); n >= 0 {
			p = p[:n]
		}
		return resolveZoneName(utf16le.DecodeLenient(p))
	}
	return Zone{
		Bias:         int32(le.Uint32(b[0:])),
		StandardName: name(b[4:68]),
		StandardDate: st(b[68:84]),
		StandardBias: int32(le.Uint32(b[84:])),
		DaylightName: name(b[88:152]),
		DaylightDate: st(b[152:168]),
		DaylightBias: int32(le.Uint32(b[168:])),
	}
}

// tzres names the time-zone strings of tzres.dll that logs refer to
// ("@tzres.dll,-212"); others are kept as the reference. -211/-212 are
// established by CounterSamples.csv, which Windows wrote from a log holding
// them; -111/-112 are inferred (FORMAT.md): bias 300 with the US daylight
// rule, and the same numbering (daylight = standard - 1).
var tzres = map[string]string{
	"@tzres.dll,-111": "Eastern Daylight Time",
	"@tzres.dll,-112": "Eastern Standard Time",
	"@tzres.dll,-211": "Pacific Daylight Time",
	"@tzres.dll,-212": "Pacific Standard Time",
}

func resolveZoneName(s string) string {
	if n, ok := tzres[strings.ToLower(s)]; ok {
		return n
	}
	return s
}

// Location returns a time.Location following the zone's rules, whose
// zone names are the Windows names (wintz.TZI.Location).
func (z Zone) Location() *time.Location { return z.tzi().Location() }

// Rule is the zone's POSIX TZ rule (wintz.TZI.Rule); "" for a zone without
// daylight time or one a rule cannot say.
func (z Zone) Rule() string {
	r, _ := z.tzi().Rule()
	return r
}

func (z Zone) tzi() wintz.TZI {
	d := func(s perfdata.SystemTime) wintz.Date {
		return wintz.Date{Year: s.Year, Month: s.Month, DayOfWeek: s.DayOfWeek, Day: s.Day, Hour: s.Hour, Minute: s.Minute, Second: s.Second}
	}
	return wintz.TZI{Bias: z.Bias, StandardName: z.StandardName, DaylightName: z.DaylightName,
		StandardDate: d(z.StandardDate), DaylightDate: d(z.DaylightDate), StandardBias: z.StandardBias, DaylightBias: z.DaylightBias}
}

// ZoneOf returns the TIME_ZONE_INFORMATION a log written in loc records:
// the zone's rule as rule states it (the POSIX TZ rule a log's reader
// gave, Input.Rule; "" derives it from loc for at's year, wintz.Rule),
// with Windows' names of the zone where loc is one Windows knows (an
// IANA zone) and the rule agrees with loc's offset, and the rule's own
// names otherwise (a zone read from a BLG carries Windows' names).
// A zone no recurring rule describes is recorded as standard time with
// the offset in force at at.
func ZoneOf(loc *time.Location, rule string, at time.Time) Zone {
	if loc == nil {
		loc = time.Local
	}
	if rule == "" {
		rule, _ = wintz.Rule(loc, at.In(loc).Year())
	}
	z, ok := parseRule(rule)
	if !ok {
		wz := wintz.At(at.In(loc))
		_, off := at.In(loc).Zone()
		z = Zone{Bias: int32(-off / 60), StandardName: wz.Name, DaylightName: wz.Name}
	}

	// Windows' names of loc, where it has them and the rule is loc's
	// (a stated rule may be another zone's: a log's, relogged here).
	_, off := at.In(loc).Zone()
	bias := int32(-off / 60)
	if key, ok := wintz.WindowsKey(wintz.IANAName(loc)); ok && (bias == z.Bias || bias == z.Bias+z.DaylightBias) {
		z.StandardName, z.DaylightName = wintz.WindowsNames(key)
	}
	return z
}

// parseRule reads the rules wintz writes: "<STD>off" or
// "<STD>off<DST>off,Mm.w.d/h[:mm[:ss]],Mm.w.d/h[:mm[:ss]]".
func parseRule(r string) (Zone, bool) {
	var z Zone
	name := func() (string, bool) {
		if !strings.HasPrefix(r, "<") {
			return "", false
		}
		i := strings.IndexByte(r, '>')
		if i < 0 {
			return "", false
		}
		n := r[1:i]
		r = r[i+1:]
		return n, true
	}
	num := func() (int, bool) { // [-]h[:mm[:ss]] in seconds
		neg := strings.HasPrefix(r, "-")
		if neg || strings.HasPrefix(r, "+") {
			r = r[1:]
		}
		secs := 0
		for part := 0; part < 3; part++ {
			i := 0
			for i < len(r) && r[i] >= '0' && r[i] <= '9' && i < 3 {
				i++
			}
			if i == 0 {
				return 0, false
			}
			v, _ := strconv.Atoi(r[:i])
			secs += v * []int{3600, 60, 1}[part]
			r = r[i:]
			if !strings.HasPrefix(r, ":") {
				break
			}
			r = r[1:]
		}
		if neg {
			secs = -secs
		}
		return secs, true
	}
	date := func() (perfdata.SystemTime, bool) {
		var d perfdata.SystemTime
		if !strings.HasPrefix(r, ",M") {
			return d, false
		}
		r = r[2:]
		var f [3]int
		for i := range f {
			j := 0
			for j < len(r) && r[j] >= '0' && r[j] <= '9' && j < 2 {
				j++
			}
			if j == 0 {
				return d, false
			}
			f[i], _ = strconv.Atoi(r[:j])
			r = r[j:]
			if i < 2 {
				if !strings.HasPrefix(r, ".") {
					return d, false
				}
				r = r[1:]
			}
		}
		secs := 2 * 3600
		if strings.HasPrefix(r, "/") {
			r = r[1:]
			var ok bool
			if secs, ok = num(); !ok {
				return d, false
			}
		}
		if f[0] < 1 || f[0] > 12 || f[1] < 1 || f[1] > 5 || f[2] > 6 || secs < 0 || secs >= 24*3600 {
			return d, false
		}
		d.Month, d.Day, d.DayOfWeek = uint16(f[0]), uint16(f[1]), uint16(f[2])
		d.Hour, d.Minute, d.Second = uint16(secs/3600), uint16(secs%3600/60), uint16(secs%60)
		return d, true
	}
	std, ok := name()
	if !ok {
		return z, false
	}
	off, ok := num()
	if !ok || off%60 != 0 {
		return z, false
	}
	z.Bias, z.StandardName, z.DaylightName = int32(off/60), std, std
	if r == "" {
		return z, true
	}
	dst, ok := name()
	if !ok {
		return z, false
	}
	doff, ok := num()
	if !ok || doff%60 != 0 {
		return z, false
	}
	z.DaylightName, z.DaylightBias = dst, int32(doff/60)-z.Bias
	if z.DaylightDate, ok = date(); !ok {
		return z, false
	}
	if z.StandardDate, ok = date(); !ok || r != "" {
		return z, false
	}
	return z, true
}
