package remote

import (
	"context"
	"errors"
	"io"
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
	// System: one of root's sets, which the serving user sees and, unless
	// it is root, may not change.
	System bool `json:"system,omitempty"`
	// Definition is the set's properties as logman's options write them.
	Definition *SetDefinition `json:"definition,omitempty"`
	// LastStart and LastStop are when its last run started and ended
	// (zero: never, or it runs).
	LastStart time.Time `json:"lastStart,omitzero"`
	LastStop  time.Time `json:"lastStop,omitzero"`
	// NextStart is when its schedule next starts it (zero: none).
	NextStart time.Time `json:"nextStart,omitzero"`
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
	Action string `json:"action"` // start, stop, create, update or delete
	Done   bool   `json:"done"`
}

// SetEditor is what a Sets may do besides list, start and stop: create,
// change and delete sets (POST /v1/sets, PATCH and DELETE
// /v1/sets/{name}), as logman create, update and delete do. A Sets that
// is not a SetEditor answers those requests with 501.
type SetEditor interface {
	// Create creates a set from def (def.Type: Counter, the default, or
	// Alert).
	Create(ctx context.Context, name string, def SetDefinition) error
	// Update changes the options def gives of an existing set.
	Update(ctx context.Context, name string, def SetDefinition) error
	// Delete deletes a set that does not run.
	Delete(ctx context.Context, name string) error
}

// SetReporter lists and opens the logs a set's runs wrote (GET
// /v1/sets/{name}/runs and /v1/sets/{name}/runs/{file}): Windows'
// Reports > User Defined.
type SetReporter interface {
	// Runs lists the set's log files, oldest first.
	Runs(ctx context.Context, name string) ([]SetRun, error)
	// OpenRun opens one of them by its file name (as Runs names it); a
	// name Runs does not list is an error wrapping ErrNoSet.
	OpenRun(ctx context.Context, name, file string) (io.ReadCloser, error)
}

// Errors of SetEditor that the API answers with their own status; each
// is wrapped with logman's message.
var (
	// ErrSetExists: create of a name that a set holds (409 set_exists).
	ErrSetExists = errors.New("a collector set of that name exists")
	// ErrSetInvalid: the definition is refused (400 bad_set).
	ErrSetInvalid = errors.New("the collector set's definition is refused")
	// ErrSetDenied: the serving user may not change the set, a system
	// set of root's (403 forbidden).
	ErrSetDenied = errors.New("access to the collector set is denied")
	// ErrSetInUse: delete of a running set (409 set_in_use).
	ErrSetInUse = errors.New("the collector set is running")
)

// SetDefinition is a set's properties as logman's options write them,
// for POST /v1/sets (create), PATCH /v1/sets/{name} (update) and the
// definition GET /v1/sets lists. Every value is in the syntax of the
// logman option named beside it; in a change a field left out (null)
// leaves the set's value, and an empty string clears it as the
// doubled-dash option does (--v, --max, --cnf, --rf: -m stop, --b: -m
// start).
type SetDefinition struct {
	// Type is Counter (the default) or Alert; create only.
	Type string `json:"type,omitempty"`
	// Counters are a counter set's counter paths (-c); a change
	// replaces the list.
	Counters *[]string `json:"counters,omitempty"`
	// Thresholds are an alert set's thresholds (-th), PATH>VALUE or
	// PATH<VALUE; a change replaces the list.
	Thresholds *[]string `json:"thresholds,omitempty"`
	// Interval is the sample interval (-si): [[hh:]mm:]ss.
	Interval *string `json:"interval,omitempty"`
	// Format is the log's format (-f): bin, bincirc, blg, csv, tsv, sql.
	Format *string `json:"format,omitempty"`
	// Output is the log file's path or SQL:DSN!logset (-o).
	Output *string `json:"output,omitempty"`
	// Version names the files (-v): nnnnnn or mmddhhmm; "" none.
	Version *string `json:"version,omitempty"`
	// Max is the log's size limit in MB, records in SQL (-max); "" none.
	Max *string `json:"max,omitempty"`
	// NewFile is -cnf: [[hh:]mm:]ss, "0" a new file at Max, "" none.
	NewFile *string `json:"newFile,omitempty"`
	// Begin is the schedule's start (-b): M/d/yyyy h:mm:ss[AM|PM] in
	// the server's time zone; "" removes the schedule (-m start).
	Begin *string `json:"begin,omitempty"`
	// End is the scheduled run's end (-e), as Begin.
	End *string `json:"end,omitempty"`
	// Repeat repeats the schedule every day (-r).
	Repeat *bool `json:"repeat,omitempty"`
	// RunFor is the stop condition, the run time (-rf): [[hh:]mm:]ss;
	// "" none (-m stop).
	RunFor *string `json:"runFor,omitempty"`
	// Samples stops the run after that many samples (-sc); "0" none.
	Samples *string `json:"samples,omitempty"`
}

// SetRun is one log file a set's runs wrote.
type SetRun struct {
	// File is the file's name in the set's log directory.
	File     string    `json:"file"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	// Current: the running set writes this file now.
	Current bool `json:"current,omitempty"`
}

// SetRuns is the JSON of GET /v1/sets/{name}/runs.
type SetRuns struct {
	Name string   `json:"name"`
	Runs []SetRun `json:"runs"`
}
