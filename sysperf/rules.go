package sysperf

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/counterpath"
)

//go:embed rules.json
var defaultRules []byte

// Rule is one warning of the report: a statistic of a counter (of each of
// its instances, for a path with *) compared with a yellow and a red
// threshold. RULES.md lists the rules of rules.json and why each
// threshold.
type Rule struct {
	ID       string `json:"id"`
	Resource string `json:"resource"` // the report's section: CPU, Memory, Disk, Network, Control groups, Pressure
	// Counter is the counter path judged; an instance of * judges every
	// instance but _Total.
	Counter string `json:"counter"`
	// Over names a counter of the same object and instance that divides
	// the value (Network Interface's Current Bandwidth); Scale multiplies
	// it (800: bytes/s over bit/s, in percent).
	Over  string  `json:"over,omitempty"`
	Scale float64 `json:"scale,omitempty"`
	// PerProcessor divides the value by the number of processors.
	PerProcessor bool `json:"perProcessor,omitempty"`
	// Stat is the statistic over the run: avg (of the samples), max, or
	// delta (the last value less the first, for a count that only grows).
	Stat string `json:"stat"`
	// Op is ">" (fires above the thresholds) or "<" (below).
	Op     string  `json:"op"`
	Yellow float64 `json:"yellow"`
	Red    float64 `json:"red"`
	Unit   string  `json:"unit"`
	// Text says what was seen: its %s are the instance (for a path with *)
	// and the value with its unit.
	Text   string `json:"text"`
	Advice string `json:"advice"`

	path counterpath.Path
}

// DefaultRules returns the rules of rules.json.
func DefaultRules() []Rule {
	rs, err := ParseRules(defaultRules)
	if err != nil {
		panic("sysperf: rules.json: " + err.Error()) // the embedded file is checked by the tests
	}
	return rs
}

// ParseRules reads and checks a rules file in rules.json's form.
func ParseRules(b []byte) ([]Rule, error) {
	var rs []Rule
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	seen := map[string]bool{}
	for i := range rs {
		r := &rs[i]
		if r.ID == "" || seen[r.ID] {
			return nil, fmt.Errorf("rules: rule %d: id %q empty or given twice", i+1, r.ID)
		}
		seen[r.ID] = true
		p, err := counterpath.Parse(r.Counter)
		if err != nil {
			return nil, fmt.Errorf("rules: %s: counter %q: %w", r.ID, r.Counter, err)
		}
		r.path = p
		switch r.Stat {
		case "avg", "max", "delta":
		default:
			return nil, fmt.Errorf("rules: %s: stat %q: want avg, max or delta", r.ID, r.Stat)
		}
		switch r.Op {
		case ">":
			if r.Red < r.Yellow {
				return nil, fmt.Errorf("rules: %s: red %g below yellow %g for >", r.ID, r.Red, r.Yellow)
			}
		case "<":
			if r.Red > r.Yellow {
				return nil, fmt.Errorf("rules: %s: red %g above yellow %g for <", r.ID, r.Red, r.Yellow)
			}
		default:
			return nil, fmt.Errorf("rules: %s: op %q: want > or <", r.ID, r.Op)
		}
		want := 1
		if p.Instance == "*" {
			want = 2
		}
		if n := strings.Count(r.Text, "%s"); n != want {
			return nil, fmt.Errorf("rules: %s: text has %d %%s, want %d (instance and value, or the value)", r.ID, n, want)
		}
	}
	return rs, nil
}
