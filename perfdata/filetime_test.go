package perfdata

import (
	"testing"
	"time"
)

func TestFileTime(t *testing.T) {
	tests := []struct {
		t  time.Time
		ft int64
	}{
		// 1970-01-01 is 11,644,473,600 s after 1601-01-01.
		{time.Unix(0, 0), 116444736000000000},
		// The real ZACH-PC block's PerfTime100nSec: 2007-08-14 19:40:38.6596596 UTC.
		{time.Date(2007, 8, 14, 19, 40, 38, 659_659_600, time.UTC), 128315940386596596},
		// Before the Unix epoch: 1969-12-31 23:59:59.9999999.
		{time.Unix(-1, 999_999_900), 116444735999999999},
	}
	for _, tt := range tests {
		if got := FileTime(tt.t); got != tt.ft {
			t.Errorf("FileTime(%v) = %d, want %d", tt.t, got, tt.ft)
		}
		if got := FileTimeToTime(tt.ft); !got.Equal(tt.t) {
			t.Errorf("FileTimeToTime(%d) = %v, want %v", tt.ft, got, tt.t)
		}
	}
}
