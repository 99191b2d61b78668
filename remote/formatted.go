package remote

import (
	"time"
)

// FormattedRequest is what POST /v1/formatted sends (and GET says with
// parameters): the counter paths, and whether raw values come too.
type FormattedRequest struct {
	// Paths are counter paths, wildcards allowed (\Processor(*)\*).
	Paths []string `json:"paths"`
	// Raw adds each value's raw counter data (PDH_RAW_COUNTER).
	Raw bool `json:"raw,omitempty"`
	// NoCap100 leaves percentages above 100 as computed
	// (PDH_FMT_NOCAP100).
	NoCap100 bool `json:"noCap100,omitempty"`
}

// FormattedAnswer is the JSON of /v1/formatted.
type FormattedAnswer struct {
	// Host is the system name of the sample's block.
	Host string `json:"host"`
	// Time is when the latest sample was taken (UTC).
	Time time.Time `json:"time"`
	// Interval is the seconds between the two samples values are computed
	// from; 0 when there is one sample yet.
	Interval float64 `json:"interval"`
	// Counters answer the request's paths, in its order.
	Counters []FormattedCounter `json:"counters"`
	// Problems are the objects the host could not deliver (or delivered
	// partly) in the latest sample.
	Problems []Problem `json:"problems,omitempty"`
}

// FormattedCounter is the answer for one requested path: its values per
// instance (and counter), or a status and reason when the path does not
// resolve.
type FormattedCounter struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Type is the counter type (winperf name) of the path's first
	// counter; empty when the path does not resolve.
	Type  string          `json:"type,omitempty"`
	Items []FormattedItem `json:"items"`
}

// FormattedItem is one value: the concrete path, PDH's instance name
// ("parent/name#n"), the value (null unless status is
// PDH_CSTATUS_VALID_DATA) and, when asked, the raw data.
type FormattedItem struct {
	Path     string   `json:"path"`
	Instance string   `json:"instance,omitempty"`
	Value    *float64 `json:"value"`
	Status   string   `json:"status"`
	Raw      *RawData `json:"raw,omitempty"`
}

// RawData is a raw counter value (PDH_RAW_COUNTER) with its type.
type RawData struct {
	Type       string `json:"type"`
	Status     string `json:"status"`
	First      uint64 `json:"first"`
	Second     uint64 `json:"second"`
	MultiCount uint64 `json:"multiCount,omitempty"`
	Time       uint64 `json:"time"`
	Freq       uint64 `json:"freq"`
}
