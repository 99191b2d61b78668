package collect

import (
	"context"
	"strings"
)

// Procedure is a V1 collect procedure (PM_OPEN_PROC, PM_COLLECT_PROC,
// PM_CLOSE_PROC). The engine never calls its methods concurrently: Open
// once before the first Collect, Collect once per query that may concern
// it, Close when the procedure is removed or disabled.
type Procedure interface {
	// Open prepares the procedure for collection.
	Open(ctx context.Context) error

	// Collect writes the objects valueName asks for into buf as
	// PERF_OBJECT_TYPE structures laid end to end, with no PERF_DATA_BLOCK
	// header, and returns the number of bytes written and the number of
	// objects. If valueName names none of the procedure's objects (see
	// Supports) it returns 0, 0, nil. If buf is too small it returns
	// perfdata.ErrMoreData and leaves buf untouched; the caller grows the
	// buffer and calls again (no size hint, as on Windows: the size may
	// change before the next call). Any other error discards the sample.
	//
	// ctx carries the engine's collect timeout. A procedure that outlives
	// it is abandoned for that sample and must not touch buf afterwards.
	Collect(ctx context.Context, valueName string, buf []byte) (n int, numObjects uint32, err error)

	// Close releases what Open acquired.
	Close() error
}

// QueryType classifies a registry value name the way a V1 provider does
// (the SDK sample's GetQueryType).
type QueryType int

// Query types.
const (
	QueryGlobal  QueryType = iota // "Global" or an empty name: every object that is not costly
	QueryCostly                   // "Costly": only the objects that are expensive to collect
	QueryForeign                  // "Foreign ...": a request for another computer; never answered locally
	QueryItems                    // a list of decimal object title indexes
)

// TypeOf returns the query type of valueName. Keywords are compared
// case-insensitively; anything that is not Global, Costly or Foreign is a
// list of indexes (which may name nothing at all, e.g. "Counter 009").
func TypeOf(valueName string) QueryType {
	first, _, _ := strings.Cut(strings.TrimLeft(valueName, " "), " ")
	switch {
	case first == "", strings.EqualFold(first, "Global"):
		return QueryGlobal
	case strings.EqualFold(first, "Costly"):
		return QueryCostly
	case strings.EqualFold(first, "Foreign"):
		return QueryForeign
	}
	return QueryItems
}

// Supports reports whether a procedure whose objects are not costly must
// answer valueName: yes for Global (and an empty name), no for Costly and
// Foreign, and for an index list yes when it names one of objectIndexes.
func Supports(valueName string, objectIndexes []uint32) bool {
	switch TypeOf(valueName) {
	case QueryGlobal:
		return true
	case QueryItems:
		return namesAny(valueName, objectIndexes)
	}
	return false
}

// SupportsCostly is Supports for a procedure whose objects are costly: they
// are collected for Costly and for index lists that name them, never for
// Global.
func SupportsCostly(valueName string, objectIndexes []uint32) bool {
	switch TypeOf(valueName) {
	case QueryCostly:
		return true
	case QueryItems:
		return namesAny(valueName, objectIndexes)
	}
	return false
}

func namesAny(valueName string, objectIndexes []uint32) bool {
	for _, x := range objectIndexes {
		if InList(x, valueName) {
			return true
		}
	}
	return false
}

// InList reports whether the space-separated list s contains the decimal
// number x, as the SDK's IsNumberInUnicodeList does: a word with any
// character other than a digit is skipped, and so is a number that does
// not fit in 32 bits.
func InList(x uint32, s string) bool {
	for w := range strings.SplitSeq(s, " ") {
		if w == "" {
			continue
		}
		var v uint64
		ok := true
		for i := 0; i < len(w) && ok; i++ {
			c := w[i]
			if c < '0' || c > '9' {
				ok = false
				break
			}
			v = v*10 + uint64(c-'0')
			if v > 0xFFFFFFFF {
				ok = false
			}
		}
		if ok && uint32(v) == x {
			return true
		}
	}
	return false
}
