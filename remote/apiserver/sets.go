package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/perfcounters/perfcounters/remote"
)

// serveSets answers /v1/sets (rest is the path after it): GET lists (role
// monitor), POST {name}/start and {name}/stop act (role log).
func (h *Handler) serveSets(w http.ResponseWriter, r *http.Request, role remote.Role, rest string) {
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
			sets = []remote.SetEntry{}
		}
		serveJSON(w, http.StatusOK, remote.SetList{Sets: sets})
		return
	}
	name, action, ok := strings.Cut(strings.TrimPrefix(rest, "/"), "/")
	if !ok || (action != "start" && action != "stop") {
		serveError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no such API path %q (want %s/{name}/start or stop)", clipText(r.URL.Path), remote.PathSets))
		return
	}
	if !allow(w, r, http.MethodPost) {
		return
	}
	if role < remote.RoleLog {
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
	case errors.Is(err, remote.ErrNoSet):
		serveError(w, http.StatusNotFound, "no_set", err.Error())
	case err != nil:
		h.opts.Logger.Error("collector set action failed", "set", name, "action", action, "err", err)
		serveError(w, http.StatusConflict, "set_failed", fmt.Sprintf("%s %s: %v", action, clipText(name), err))
	default:
		serveJSON(w, http.StatusOK, remote.SetAction{Name: name, Action: action, Done: true})
	}
}
