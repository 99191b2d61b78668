package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
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

// serveSets answers /v1/sets (rest is the path after it): GET lists (role
// monitor), POST {name}/start and {name}/stop act (role log).
func (h *Handler) serveSets(w http.ResponseWriter, r *http.Request, role Role, rest string) {
	if rest == "" || rest == "/" {
		if !allow(w, r, http.MethodGet) {
			return
		}
		if len(r.URL.RawQuery) > 0 {
			badParam(w, "query", r.URL.RawQuery, "GET /v1/sets takes no parameters")
			return
		}
		if h.opts.Sets == nil {
			serveError(w, http.StatusNotImplemented, "no_sets", "this server does not manage collector sets")
			return
		}
		sets, err := h.opts.Sets.List(r.Context())
		if err != nil {
			h.opts.Logger.Error("listing collector sets failed", "err", err)
			serveError(w, http.StatusInternalServerError, "sets_failed", fmt.Sprintf("the collector sets could not be listed: %v", err))
			return
		}
		if sets == nil {
			sets = []SetEntry{}
		}
		serveJSON(w, http.StatusOK, SetList{Sets: sets})
		return
	}
	name, action, ok := strings.Cut(strings.TrimPrefix(rest, "/"), "/")
	if !ok || (action != "start" && action != "stop") {
		serveError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no such API path %q (want %s/{name}/start or stop)", clipText(r.URL.Path), PathSets))
		return
	}
	if !allow(w, r, http.MethodPost) {
		return
	}
	if role < RoleLog {
		serveError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("managing collector sets needs the log role; this caller has %s", role))
		return
	}
	if err := checkName(name); err != nil {
		badParam(w, "name", name, err.Error())
		return
	}
	if len(r.URL.RawQuery) > 0 {
		badParam(w, "query", r.URL.RawQuery, "this request takes no parameters")
		return
	}
	if h.opts.Sets == nil {
		serveError(w, http.StatusNotImplemented, "no_sets", "this server does not manage collector sets")
		return
	}
	var err error
	if action == "start" {
		err = h.opts.Sets.Start(r.Context(), name)
	} else {
		err = h.opts.Sets.Stop(r.Context(), name)
	}
	switch {
	case errors.Is(err, ErrNoSet):
		serveError(w, http.StatusNotFound, "no_set", err.Error())
	case err != nil:
		h.opts.Logger.Error("collector set action failed", "set", name, "action", action, "err", err)
		serveError(w, http.StatusConflict, "set_failed", fmt.Sprintf("%s %s: %v", action, clipText(name), err))
	default:
		serveJSON(w, http.StatusOK, SetAction{Name: name, Action: action, Done: true})
	}
}
