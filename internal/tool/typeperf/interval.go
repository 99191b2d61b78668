package typeperf

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxInterval is the longest sample interval ParseInterval accepts: one
// year. Windows stores a sample interval as a 32-bit count of seconds;
// a longer wait is a typing mistake, and the bound keeps every interval far
// from overflowing time.Duration (about 292 years).
const MaxInterval = 365 * 24 * time.Hour

// ParseInterval reads a sample interval as typeperf's -si takes it:
// "[[hh:]mm:]ss", each part a whole number; the first part may exceed 59
// ("-si 90", "-si 90:00"), the others may not. Intervals of zero, above MaxInterval, and parts too
// large to add up are refused with a message saying what is allowed.
func ParseInterval(s string) (time.Duration, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) > 3 {
		return 0, fmt.Errorf("interval %q: want [[hh:]mm:]ss", s)
	}
	const maxSecs = int64(MaxInterval / time.Second)
	var total int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil && strings.TrimLeft(p, "0123456789") == "" && p != "" {
			return 0, fmt.Errorf("interval %q: longer than the longest allowed, %d hours (one year)", s, maxSecs/3600)
		}
		if err != nil || n < 0 || p[0] == '+' || (i > 0 && n > 59) {
			return 0, fmt.Errorf("interval %q: want [[hh:]mm:]ss with whole numbers (minutes and seconds after a ':' below 60)", s)
		}
		// Checked before multiplying, so total*60 + n cannot overflow.
		if total > maxSecs || n > maxSecs {
			return 0, fmt.Errorf("interval %q: longer than the longest allowed, %d hours (one year)", s, maxSecs/3600)
		}
		total = total*60 + n
	}
	if total > maxSecs {
		return 0, fmt.Errorf("interval %q: longer than the longest allowed, %d hours (one year)", s, maxSecs/3600)
	}
	if total == 0 {
		return 0, fmt.Errorf("interval %q: must be at least one second", s)
	}
	return time.Duration(total) * time.Second, nil
}
