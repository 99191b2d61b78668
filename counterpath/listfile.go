package counterpath

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/utf16le"
)

// Limits of a counter list file (ReadList).
const (
	// MaxListSize is the largest counter list file read: 16 MiB, far
	// beyond any real list (the whole Windows catalogue with instances is
	// a few MiB) and small enough that reading a device such as /dev/zero
	// fails at once.
	MaxListSize = 16 << 20
	// MaxListLine is the longest line, in bytes after decoding: 64 KiB,
	// beyond any path PDH accepts (PDH_MAX_COUNTER_PATH is 2048 characters).
	MaxListLine = 64 << 10
)

// ReadListFile reads a counter list file as typeperf -cf and relog -cf
// take it; see ReadList. Errors name the file.
func ReadListFile(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadList(f, name)
}

// ReadList reads a counter list: one counter path per line, as the
// Windows tools' -cf option takes it. The text may be UTF-8 (with or
// without a byte-order mark) or UTF-16 with a byte-order mark (what
// Windows PowerShell's Out-File and ">" write, little-endian; big-endian
// is read too). Lines end in LF or CR LF. The Windows documentation says
// only "one counter per line"; as extensions that cannot clash with a
// path (which starts with '\'), blank lines and lines whose first
// non-blank character is '#' or ';' are skipped, surrounding blanks are
// trimmed, and a path wrapped in double quotes (as typeperf writes them)
// is unwrapped. name is used in errors only ("name:line: ...").
//
// Input over MaxListSize bytes, a line over MaxListLine bytes, text that
// is not valid UTF-8 or UTF-16, and NUL characters are errors: time and
// memory stay linear in the input and bounded by MaxListSize.
func ReadList(r io.Reader, name string) ([]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxListSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxListSize {
		return nil, fmt.Errorf("%s: larger than %d MiB: not a counter list", name, MaxListSize>>20)
	}
	text, err := utf16le.Text(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return listLines(text, name)
}

// ReadListFileIn reads a counter list file as ReadListFile does, but
// text without a byte-order mark that is not UTF-8 is read in code page
// cp, or with utf16le.Auto in the likeliest ANSI code page (a list saved
// by an older Notepad in the machine's ANSI code page): the same decoder
// as the text logs', whose Decision says how the file was read.
func ReadListFileIn(name string, cp utf16le.CodePage) ([]string, utf16le.Decision, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, utf16le.Decision{}, err
	}
	defer f.Close()
	lr := &io.LimitedReader{R: f, N: MaxListSize + 1}
	tr := utf16le.NewTextReader(lr, cp)
	data, err := io.ReadAll(tr)
	var de *utf16le.DecodeError
	switch {
	case lr.N == 0:
		return nil, tr.Decision(), fmt.Errorf("%s: larger than %d MiB: not a counter list", name, MaxListSize>>20)
	case errors.As(err, &de):
		return nil, tr.Decision(), fmt.Errorf("%s:%d: %s", name, de.Line, de.Msg)
	case err != nil:
		return nil, tr.Decision(), fmt.Errorf("%s: %w", name, err)
	}
	paths, err := listLines(string(data), name)
	return paths, tr.Decision(), err
}

// listLines reads the lines of a decoded counter list (ReadList).
func listLines(text, name string) ([]string, error) {
	var paths []string
	for n := 1; text != ""; n++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if len(line) > MaxListLine {
			return nil, fmt.Errorf("%s:%d: line longer than %d KiB", name, n, MaxListLine>>10)
		}
		if !utf8.ValidString(line) {
			return nil, fmt.Errorf("%s:%d: not valid UTF-8 (save the file as UTF-8 or as UTF-16 with a byte-order mark)", name, n)
		}
		if strings.IndexByte(line, 0) >= 0 {
			return nil, fmt.Errorf("%s:%d: NUL character in line (a UTF-16 file needs a byte-order mark)", name, n)
		}
		l := strings.TrimSpace(line)
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if len(l) >= 2 && l[0] == '"' && l[len(l)-1] == '"' {
			l = l[1 : len(l)-1]
		}
		paths = append(paths, l)
	}
	return paths, nil
}
