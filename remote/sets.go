package remote

import (
	"context"
	"errors"
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
