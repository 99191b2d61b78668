package pdh_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// fixtureSource opens the four recorded samples of fixtureBlocks.
func fixtureSource() *pdh.BlockFiles {
	files, _ := filepath.Glob(filepath.Join(fixtureBlocks, "sample-*.perfdata"))
	data, err := os.ReadFile(filepath.Join(fixtureBlocks, "titles.tsv"))
	if err != nil {
		log.Fatal(err)
	}
	db, err := titles.Load(data)
	if err != nil {
		log.Fatal(err)
	}
	src, err := pdh.OpenBlockFiles(files, db)
	if err != nil {
		log.Fatal(err)
	}
	return src
}

// A collection loop (PdhCollectQueryDataEx's role): Every collects and
// runs the loop's body for each sample; over a recording it reads sample
// after sample to the end, over a live source it waits the interval in
// between and stops with the context. SetTimeRange keeps a recording to
// a span of time (PdhSetQueryTimeRange).
func ExampleQuery_Every() {
	src := fixtureSource()
	q := pdh.OpenQuery(src)
	defer q.Close()
	mem, err := q.AddCounter(`\Memory\Available MBytes`)
	if err != nil {
		log.Fatal(err)
	}
	t0 := src.Recorded().Time(0)
	if err := q.SetTimeRange(t0.Add(time.Second), t0.Add(2*time.Second)); err != nil {
		log.Fatal(err)
	}
	for err := range q.Every(context.Background(), time.Second) {
		if err != nil {
			log.Fatal(err)
		}
		v, _ := mem.Formatted(calc.FmtDouble)
		fmt.Printf("%s  %g MB\n", q.Time().Format("15:04:05"), v.Double)
	}
	// Output:
	// 12:00:01  2049 MB
	// 12:00:02  2050 MB
}

// ValidatePath checks a path's syntax and that it exists
// (PdhValidatePath); DefaultObject and DefaultCounter name what a
// browser preselects (PdhGetDefaultPerfObject, PdhGetDefaultPerfCounter).
func ExampleValidatePath() {
	ctx := context.Background()
	src := fixtureSource()
	for _, p := range []string{`\Memory\Available MBytes`, `\Memory\Available Apples`, `\Memory\`} {
		fmt.Println(p, "->", pdh.ValidatePath(ctx, src, p))
	}
	obj, err := pdh.DefaultObject(ctx, src)
	if err != nil {
		log.Fatal(err)
	}
	ctr, err := pdh.DefaultCounter(ctx, src, obj)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("default: \\%s\\%s\n", obj, ctr)
	// Output:
	// \Memory\Available MBytes -> <nil>
	// \Memory\Available Apples -> pdh: \Memory\Available Apples: no counter "Available Apples" in object "Memory" (did you mean "Available MBytes"?)
	// \Memory\ -> pdh: counterpath: "\Memory\": empty counter name at byte 8
	// default: \Processor\% Processor Time
}
