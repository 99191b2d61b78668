package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/utf16le"
)

// codePageUsage is -codepage's help, shared by the commands that read
// text files a Windows machine wrote.
const codePageUsage = "The `codepage` of text logs and -cf files whose bytes do not say theirs (no byte-order mark, not UTF-8), as Windows names it: 1252, cp1251, windows-1251, shift_jis, 936, ... Default is the likeliest ANSI code page, with a warning that names it."

// cfCodePageUsage is -codepage's help for the commands whose only text
// input is the -cf file.
const cfCodePageUsage = "The `codepage` of the -cf file when its bytes do not say theirs (no byte-order mark, not UTF-8): 1252, cp1251, windows-1251, shift_jis, ... Default is the likeliest ANSI code page, with a warning that names it."

// parseCodePage reads -codepage: "" decides from the bytes.
func parseCodePage(flag, s string) (utf16le.CodePage, error) {
	if strings.TrimSpace(s) == "" {
		return utf16le.Auto, nil
	}
	cp, err := utf16le.ParseCodePage(s)
	if err != nil {
		return 0, usagef("%s: %v", flag, err)
	}
	return cp, nil
}

// outputCodePageUsage is relog's -ocodepage help.
const outputCodePageUsage = "The `encoding` of a text log written (-f CSV or TSV): utf-8 (the default, no byte-order mark), utf-8-bom (UTF-8 with a byte-order mark: Excel opens it with every name intact), utf-16 (UTF-16LE with a byte-order mark, Windows' \"Unicode\"), or an ANSI code page as -codepage takes it (1252, cp1251, ...) for Windows tools that read text logs in the machine's code page; a name the code page cannot write is an error."

// parseOutputCodePage reads -ocodepage: a code page, and whether UTF-8
// gets a byte-order mark ("utf-8-bom").
func parseOutputCodePage(s string) (cp utf16le.CodePage, bom bool, err error) {
	switch strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.TrimSpace(s))) {
	case "":
		return utf16le.UTF8, false, nil
	case "utf8bom", "utf8withbom", "utf8sig":
		return utf16le.UTF8, true, nil
	}
	cp, err = utf16le.ParseCodePage(s)
	if err != nil {
		return 0, false, usagef("-ocodepage: %v (or utf-8-bom)", err)
	}
	return cp, false, nil
}

// encodedOutput wraps a text log's writer in the encoder of -ocodepage;
// UTF-8 without a mark, what the writer makes, goes through unchanged.
// Errors name the output.
func encodedOutput(w io.Writer, closeOut func() error, name string, cp utf16le.CodePage, bom bool) (io.Writer, func() error, error) {
	if cp == utf16le.UTF8 && !bom {
		return w, closeOut, nil
	}
	if name == "" || name == "-" {
		name = "standard output"
	}
	tw, err := utf16le.NewTextWriter(w, cp, bom)
	if err != nil {
		return nil, nil, err
	}
	return namedWriter{tw, name}, func() error {
		err := tw.Close()
		if err != nil {
			err = fmt.Errorf("%s: %w", name, err)
		}
		if cerr := closeOut(); err == nil {
			err = cerr
		}
		return err
	}, nil
}

// namedWriter names its output in its errors.
type namedWriter struct {
	w    io.Writer
	name string
}

func (n namedWriter) Write(p []byte) (int, error) {
	k, err := n.w.Write(p)
	if err != nil {
		err = fmt.Errorf("%s: %w", n.name, err)
	}
	return k, err
}

// readCounterList reads a -cf file through the text logs' decoder: a
// byte-order mark, UTF-8, the code page named, or a guess, which warn
// tells of.
func readCounterList(name string, cp utf16le.CodePage, warn func(string)) ([]string, error) {
	paths, d, err := counterpath.ReadListFileIn(name, cp)
	if err != nil {
		return nil, err
	}
	if d.Assumed() || d.Overruled() {
		msg := name + ": " + d.String()
		if d.By == utf16le.ByGuess {
			msg += "; if its counters are not found, name its code page (-codepage)"
		}
		warn(msg)
	}
	return paths, nil
}
