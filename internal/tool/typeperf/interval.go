package typeperf

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseInterval reads a sample interval as typeperf's -si takes it:
// "[[hh:]mm:]ss", each part a whole number (seconds may exceed 59 when
// alone, as in "-si 90").
func ParseInterval(s string) (time.Duration, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) > 3 {
		return 0, fmt.Errorf("interval %q: want [[hh:]mm:]ss", s)
	}
	var total int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil || n < 0 || (i > 0 && n > 59) {
			return 0, fmt.Errorf("interval %q: want [[hh:]mm:]ss with whole numbers", s)
		}
		total = total*60 + n
	}
	if total == 0 {
		return 0, fmt.Errorf("interval %q: must be at least one second", s)
	}
	return time.Duration(total) * time.Second, nil
}
