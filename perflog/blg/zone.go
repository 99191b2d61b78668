package blg

import (
	"encoding/binary"
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
