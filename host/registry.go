package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/pdh"
)

// ServeQuery answers a value name of HKEY_PERFORMANCE_DATA as a server
// of this host answers it (remote/apiserver's Registry): "Global",
// "Costly", "Counter [lang]", "Help [lang]" or title indexes, with the
// block (or the MULTI_SZ title list: multiSZ) and the problems of its
// objects. A value it cannot read, or a Foreign query (a server answers
// for its own host only), is a *ValueError.
func (h *Host) ServeQuery(ctx context.Context, value string) (data []byte, multiSZ bool, problems []pdh.Problem, err error) {
	q, err := ParseQueryValue(value)
	if err != nil {
		return nil, false, nil, err
	}
	r, err := h.Query(ctx, q)
	if err != nil {
		return nil, false, nil, err
	}
	return r.Block, q.Kind == engine.QueryCounter || q.Kind == engine.QueryHelp, SampleProblems(r), nil
}

// Costly collects the host's Costly objects, which Global leaves out.
func (h *Host) Costly(ctx context.Context) (*pdh.Sample, error) {
	return EngineSource(h).Costly(ctx)
}

// ValueError is a value name ServeQuery cannot answer.
type ValueError struct{ Reason string }

func (e *ValueError) Error() string { return e.Reason }

// BadValue reports that the caller's value is at fault (a server answers
// 400).
func (e *ValueError) BadValue() bool { return true }

// ParseQueryValue reads a value name as a server answers it: what
// engine.ParseQuery reads, but for Foreign (a server does not chain to
// other hosts), with its language checked. The server bounds the value
// before (remote/apiserver: 8 KiB), so its messages quote it whole.
func ParseQueryValue(v string) (engine.Query, error) {
	q, err := engine.ParseQuery(v)
	if err != nil {
		return engine.Query{}, &ValueError{strings.TrimPrefix(err.Error(), "engine: ")}
	}
	switch q.Kind {
	case engine.QueryForeign:
		return engine.Query{}, &ValueError{fmt.Sprintf("a Foreign query (host %s): this server answers for its own host only; ask %s's server", q.Host, q.Host)}
	case engine.QueryCounter, engine.QueryHelp:
		if q.Lang != "" && !isLang(q.Lang) {
			return engine.Query{}, &ValueError{fmt.Sprintf("language %q: want a hexadecimal language id such as 009", q.Lang)}
		}
	}
	return q, nil
}

// isLang reports whether s is a language id as the registry spells it
// (up to four hexadecimal digits, "009").
func isLang(s string) bool {
	if len(s) < 1 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
