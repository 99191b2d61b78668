package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// ServeQuery answers a value name of HKEY_PERFORMANCE_DATA as a server
// of this host answers it (remote/apiserver's Registry): "Global",
// "Costly", "Counter [lang]", "Help [lang]" or title indexes, with the
// block (or the MULTI_SZ title list: multiSZ) and the problems of its
// objects. A value it cannot read, or a Foreign query (a server answers
// for its own host only), is a *ValueError.
func (h *Host) ServeQuery(ctx context.Context, value string) (data []byte, multiSZ bool, problems []pdh.Problem, err error) {
	return EngineRegistry(h).ServeQuery(ctx, value)
}

// Costly collects the host's Costly objects, which Global leaves out.
func (h *Host) Costly(ctx context.Context) (*pdh.Sample, error) {
	return EngineRegistry(h).Costly(ctx)
}

// QueryRegistry answers registry value names and Costly collections
// (remote/apiserver's Registry) from any engine: the local host's
// answers, for an engine of tests or of a program of its own.
type QueryRegistry struct{ e Querier }

// EngineRegistry is e's QueryRegistry.
func EngineRegistry(e Querier) QueryRegistry { return QueryRegistry{e} }

// ServeQuery answers a value name as (*Host).ServeQuery does, from the
// registry's engine.
func (r QueryRegistry) ServeQuery(ctx context.Context, value string) (data []byte, multiSZ bool, problems []pdh.Problem, err error) {
	q, err := ParseQueryValue(value)
	if err != nil {
		return nil, false, nil, err
	}
	res, err := r.e.Query(ctx, q)
	if err != nil {
		return nil, false, nil, err
	}
	return res.Block, q.Kind == engine.QueryCounter || q.Kind == engine.QueryHelp, SampleProblems(res), nil
}

// Costly collects the engine's Costly objects.
func (r QueryRegistry) Costly(ctx context.Context) (*pdh.Sample, error) {
	return EngineSource(r.e).Costly(ctx)
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
		if q.Lang != "" {
			if _, err := titles.ParseLang(q.Lang); err != nil {
				return engine.Query{}, &ValueError{fmt.Sprintf("language %q: want a language id such as 009 or 007 (or a tag such as de-DE)", q.Lang)}
			}
		}
	}
	return q, nil
}
