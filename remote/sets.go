package remote

import (
	"context"
	"errors"
	"time"
)

// Sets manages the host's collector sets for /v1/sets (logman's query,
// start and stop). The program adapts package pla and the state
// directory to it.
type Sets interface {
	// List returns every collector set of the host.
	List(ctx context.Context) ([]SetEntry, error)
	// Start starts the named set; an unknown name is an error wrapping
	// ErrNoSet.
	Start(ctx context.Context, name string) error
	// Stop stops the named set; an unknown name is an error wrapping
	// ErrNoSet.
	Stop(ctx context.Context, name string) error
}

// ErrNoSet is what Sets.Start and Stop wrap for a set that does not
// exist; the API answers it with 404.
var ErrNoSet = errors.New("no such collector set")

// SetEntry is a collector set as /v1/sets lists it.
type SetEntry struct {
	Name string `json:"name"`
	// Running tells whether a collector runs the set now.
	Running bool `json:"running"`
	// Detail says which process runs it, or how its last run ended.
	Detail string `json:"detail,omitempty"`
	// Output is where the set writes its log.
	Output string `json:"output,omitempty"`
	// Type is the set's collector: "Counter" or "Alert".
	Type string `json:"type,omitempty"`
	// Alerts are an alert set's thresholds as its collector last judged
	// them, one per threshold and counter instance.
	Alerts []AlertEntry `json:"alerts,omitempty"`
}

// AlertEntry is one threshold of an alert set judged for one counter
// instance.
type AlertEntry struct {
	Threshold string `json:"threshold"` // as written: PATH>VALUE
	Counter   string `json:"counter"`   // the instance's concrete path
	// Firing: the alert has fired and not cleared.
	Firing bool    `json:"firing"`
	Value  float64 `json:"value"`
	// Fired counts its firings since the set started.
	Fired     uint64    `json:"fired"`
	LastFired time.Time `json:"lastFired,omitzero"`
	Sampled   time.Time `json:"sampled,omitzero"`
}

// SetList is the JSON of GET /v1/sets.
type SetList struct {
	Sets []SetEntry `json:"sets"`
}

// SetAction is the JSON answer of POST /v1/sets/{name}/start or stop.
type SetAction struct {
	Name   string `json:"name"`
	Action string `json:"action"` // start or stop
	Done   bool   `json:"done"`
}
