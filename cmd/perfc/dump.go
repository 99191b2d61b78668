package main

import (
	"context"
	"fmt"

	"github.com/perfcounters/perfcounters/internal/tool/dump"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/titles"
)

func dumpCommand() command {
	return command{
		name:  "dump",
		usage: "[--json] [--titles FILE] FILE...",
		short: "print raw PERF_DATA_BLOCK files (ours or captured on Windows) for a person or, with --json, a program; list a binary log's records",
		run:   runDump,
		help: helpScreen{
			about: "Dump prints raw PERF_DATA_BLOCK files, ours or captured on Windows, for\na person or (with -json) a program, and lists the records of binary logs:\nours (typeperf -f BIN) and Windows' (.blg).",
			usage: []string{"perfc dump [options] <filename [filename ...]>"},
			params: [][2]string{
				{"<filename [filename ...]>", "Block files to print, or binary logs to list."},
			},
			examples: [][2]string{
				{"A block captured on Windows Vista:", "perfc dump perfdata/testdata/windows/s01-0238-Processor.bin"},
				{"The records of a log Windows wrote:", "perfc dump perflog/blg/testdata/BadCounterSamples.blg"},
				{"For programs:", "perfc dump -json now.perfdata"},
				{"Names from another host's title list:", "perfc dump -titles counter.bin x.bin"},
			},
		},
	}
}

func runDump(ctx context.Context, c *command, e *env, args []string) error {
	fs := c.flags(e.stdout)
	asJSON := fs.Bool("json", false, "write JSON instead of text")
	titlesFile := fs.String("titles", "", "title database for names: a perfc query Counter output or an index<TAB>name list (default: the local database)")
	files, err := parseFlags(fs, args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("no block file given")
	}
	db, err := loadTitles(e, *titlesFile)
	if err != nil {
		return err
	}
	opts := dump.Options{JSON: *asJSON, Titles: db}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if dump.IsLog(f) {
			// A binary log, ours or a BLG: its records, whatever --json says.
			if err := dump.Log(e.stdout, f); err != nil {
				return err
			}
			continue
		}
		if kind, ok := perflog.IsTextLog(f); ok {
			return fmt.Errorf("%s: a PDH text log (%s), which holds formatted values, not blocks or records: perfc relog %s -q lists its counters and time range", f, kind, f)
		}
		data, err := perfdata.ReadFile(f)
		if err != nil {
			return err
		}
		if err := dump.Write(e.stdout, f, data, opts); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// loadTitles reads a title database file, or returns the local one.
func loadTitles(e *env, file string) (*titles.DB, error) {
	if file == "" {
		return localTitles(e)
	}
	return titles.LoadFile(file)
}
