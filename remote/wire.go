// Package remote owns perfc's network protocol for one host's counters:
// the wire of the versioned HTTP API that `perfc serve` answers (this
// file and the JSON types; API.md), the client that is a pdh.Source for
// a remote host (client.go), and the hosts file that names remote hosts
// (hosts.go, HOSTS.md). The server side is package remote/apiserver.
//
// The sample travels as the registry sees it: a QueryValue answer is the
// PERF_DATA_BLOCK the engine built, byte for byte, never re-encoded. What
// the block cannot say (objects the engine dropped or delivered with
// placeholder values) travels beside it, in the Perfc-Problems header.
//
// This file is the contract between the server and the client side: the
// paths, media types, headers, roles and the JSON of problems and errors.
package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/internal/termtext"
)

// APIVersion is the version prefix of every API path.
const APIVersion = "/v1"

// API paths, relative to the server's root.
const (
	// PathQuery answers a registry QueryValue: ?value=Global, Costly,
	// "Counter [lang]", "Help [lang]" or a space-separated index list.
	// The body is a PERF_DATA_BLOCK (MediaBlock) or, for Counter and
	// Help, the MULTI_SZ list in UTF-16LE (MediaMultiSZ).
	PathQuery = APIVersion + "/query"
	// PathHost describes the host (JSON): name, time, PerfFreq, version,
	// and the caller's role.
	PathHost = APIVersion + "/host"
	// PathObjects enumerates objects, counters and instances with their
	// explain texts and detail levels (JSON), for an Add Counters dialog.
	PathObjects = APIVersion + "/objects"
	// PathFormatted answers formatted values of counter paths (JSON).
	PathFormatted = APIVersion + "/formatted"
	// PathSets lists and manages collector sets (role log).
	PathSets = APIVersion + "/sets"
	// PathMetrics is the OpenMetrics endpoint for Prometheus.
	PathMetrics = "/metrics"
)

// Media types of the API's bodies.
const (
	// MediaBlock is a PERF_DATA_BLOCK exactly as the registry returns it.
	MediaBlock = "application/vnd.perfc.perf-data-block"
	// MediaMultiSZ is a REG_MULTI_SZ value (UTF-16LE strings, each ended
	// by a NUL, the list by another): the Counter and Help values.
	MediaMultiSZ = "application/vnd.perfc.multi-sz"
	// MediaJSON is every other answer and every error.
	MediaJSON = "application/json"
)

// HeaderProblems carries, beside a block, the objects the engine dropped
// or delivered with placeholder values: a JSON array of Problem, written
// in ASCII only (non-ASCII characters as \u escapes) so it is a valid
// header value. Absent when there are none.
const HeaderProblems = "Perfc-Problems"

// MaxProblemsHeader is the most bytes of a Perfc-Problems header a client
// accepts (and a server writes: beyond it, problems are cut and the last
// one says how many were left out).
const MaxProblemsHeader = 64 << 10

// Problem is an object the server could not deliver, or delivered with
// some values that are placeholders. It mirrors pdh.Problem on the wire.
type Problem struct {
	Object     uint32          `json:"object"`
	ObjectName string          `json:"objectName"`
	Reason     string          `json:"reason"`
	Partial    bool            `json:"partial,omitempty"`
	Missing    []MissingValues `json:"missing,omitempty"`
}

// MissingValues names placeholder values of one instance (-1: the object
// has no instances); Counters are title indexes, none meaning every one.
type MissingValues struct {
	Instance int      `json:"instance"`
	Counters []uint32 `json:"counters,omitempty"`
}

// EncodeProblems writes problems as a Perfc-Problems header value.
func EncodeProblems(ps []Problem) (string, error) {
	b, err := json.Marshal(ps)
	if err != nil {
		return "", err
	}
	return asciiJSON(b), nil
}

// DecodeProblems reads a Perfc-Problems header value; an empty value is
// no problem. The value comes from the network: its size is checked
// before it is decoded, and its texts are escaped for a terminal
// (internal/termtext).
func DecodeProblems(v string) ([]Problem, error) {
	if v == "" {
		return nil, nil
	}
	if len(v) > MaxProblemsHeader {
		return nil, fmt.Errorf("%s header: %d bytes, more than %d", HeaderProblems, len(v), MaxProblemsHeader)
	}
	var ps []Problem
	if err := json.Unmarshal([]byte(v), &ps); err != nil {
		return nil, fmt.Errorf("%s header: %w", HeaderProblems, err)
	}
	for i := range ps {
		// The texts are another computer's, printed as warnings here.
		ps[i].ObjectName, ps[i].Reason = termtext.Escape(ps[i].ObjectName), termtext.Escape(ps[i].Reason)
	}
	return ps, nil
}

// asciiJSON escapes every non-ASCII rune of JSON text as \uXXXX (with
// surrogate pairs), which JSON reads back as the same string.
func asciiJSON(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		switch {
		case r < utf8.RuneSelf:
			sb.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&sb, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&sb, `\u%04x`, r)
		}
	}
	return sb.String()
}

// Error is the JSON body of every error answer:
// {"error":{"status":401,"code":"unauthorized","reason":"..."}}.
type Error struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// ErrorBody is the object an error answer holds.
type ErrorBody struct {
	Error Error `json:"error"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Reason) }

// Role is what an authenticated caller may do, as Windows' groups:
// Performance Monitor Users read, Performance Log Users also manage
// collector sets.
type Role int

// Roles, in increasing power. RoleNone is an unauthenticated caller.
const (
	RoleNone    Role = iota
	RoleMonitor      // read counters, titles, explain texts
	RoleLog          // RoleMonitor, and manage collector sets
)

func (r Role) String() string {
	switch r {
	case RoleMonitor:
		return "monitor"
	case RoleLog:
		return "log"
	}
	return "none"
}

// ParseRole reads a role's name (monitor or log, any case).
func ParseRole(s string) (Role, error) {
	switch strings.ToLower(s) {
	case "monitor":
		return RoleMonitor, nil
	case "log":
		return RoleLog, nil
	}
	return RoleNone, fmt.Errorf("role %q: want monitor or log", s)
}

type roleKey struct{}

// WithRole returns ctx carrying the caller's role and identity (a user
// name, a token's name, a certificate's subject). The server's
// authentication sets it; the handlers read it with Caller.
func WithRole(ctx context.Context, r Role, who string) context.Context {
	return context.WithValue(ctx, roleKey{}, caller{r, who})
}

type caller struct {
	role Role
	who  string
}

// Caller returns the role and identity WithRole put in ctx (RoleNone and
// "" when none).
func Caller(ctx context.Context) (Role, string) {
	c, _ := ctx.Value(roleKey{}).(caller)
	return c.role, c.who
}

// Limits of the API. Requests beyond them are refused with 400 or 413
// before any work is done; API.md lists them.
const (
	// MaxQueryString is the most bytes of a request's query string.
	MaxQueryString = 64 << 10
	// MaxBody is the most bytes of a request body (POST /v1/formatted).
	MaxBody = 1 << 20
	// MaxPaths is the most counter paths of one formatted request.
	MaxPaths = 1000
	// MaxPathLength is the most bytes of one counter path (PDH's
	// PDH_MAX_COUNTER_PATH is 2048 characters).
	MaxPathLength = 2048
	// MaxValueLength is the most bytes of a query's value name.
	MaxValueLength = 8 << 10
	// MaxNameLength is the most bytes of an object or set name in a path.
	MaxNameLength = 1024
	// MaxItems is the most values of one formatted answer (paths with
	// wildcards expand to one value per instance and counter).
	MaxItems = 100_000
)
