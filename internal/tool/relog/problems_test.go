package relog

import (
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// withProblems is a recording whose every sample reports the same
// problems, as a log written by a collector that met them does.
type withProblems struct {
	*pdh.BlockFiles
	problems []pdh.Problem
}

func (s *withProblems) Recorded() pdh.Recorded { return s.BlockFiles }

func (s *withProblems) Sample(ctx context.Context, objs []uint32) (*pdh.Sample, error) {
	smp, err := s.BlockFiles.Sample(ctx, objs)
	if err != nil {
		return nil, err
	}
	smp.Problems = s.problems
	return smp, nil
}

// TestRecordedProblemsOfTheOutputOnly: relog tells the problems a log
// recorded only where they touch what it writes: an object -c did not
// keep, placeholders of an instance it does not write and quiet problems
// (other users' cells) are not told; a placeholder it writes is.
func TestRecordedProblemsOfTheOutputOnly(t *testing.T) {
	db := titles.English()
	proc, _ := db.Index("Processor")
	pct, _ := db.Index("% Processor Time")
	system, _ := db.Index("System")
	files := processorBlocks(t, t.TempDir(), proc, pct, []uint64{0, 5_000_000, 10_000_000, 15_000_000})
	problems := []pdh.Problem{
		{Object: system, ObjectName: "System", Reason: "provider failed"},
		{Object: proc, ObjectName: "Processor", Partial: true, Reason: "cpu9 offline", Missing: []pdh.MissingValues{{Instance: 4}}},
		{Object: proc, ObjectName: "Processor", Partial: true, Missing: []pdh.MissingValues{{Instance: 0}}},
	}
	shown := pdh.Problem{Object: proc, ObjectName: "Processor", Partial: true, Reason: "cpu3 idle unreadable",
		Missing: []pdh.MissingValues{{Instance: 0, Counters: []uint32{pct}}}}
	cases := []struct {
		name     string
		problems []pdh.Problem
		want     []string
	}{
		{"none shown", problems, nil},
		{"one shown", append(slices.Clone(problems), shown), []string{"object Processor incomplete: cpu3 idle unreadable in 4 of 4 samples"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bf, err := pdh.OpenBlockFiles(files, db)
			if err != nil {
				t.Fatal(err)
			}
			var warned []string
			opts := Options{Counters: []string{`\Processor(*)\% Processor Time`}, Location: time.UTC,
				Warn: func(s string) { warned = append(warned, s) }}
			if _, _, err := Run(t.Context(), &withProblems{BlockFiles: bf, problems: tc.problems}, opts, io.Discard); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(warned, tc.want) {
				t.Errorf("warned %q, want %q", warned, tc.want)
			}
		})
	}
}
