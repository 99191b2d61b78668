package collect

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
)

func TestParseRequest(t *testing.T) {
	tests := []struct {
		line    string
		want    request
		wantErr string
	}{
		{line: "HELLO 1", want: request{verb: verbHello, version: 1}},
		{line: "OPEN", want: request{verb: verbOpen}},
		{line: "CLOSE\r", want: request{verb: verbClose}},
		{line: "COLLECT 65536 Global", want: request{verb: verbCollect, size: 65536, valueName: "Global"}},
		{line: "COLLECT 8 2 4 238", want: request{verb: verbCollect, size: 8, valueName: "2 4 238"}},
		{line: "COLLECT 0 ", want: request{verb: verbCollect, size: 0, valueName: ""}},
		{line: "COLLECT 4294967295 x", want: request{verb: verbCollect, size: 4294967295, valueName: "x"}},
		{line: "COLLECT 4294967296 x", wantErr: "does not fit in 32 bits"},
		{line: "COLLECT 012 x", wantErr: "leading zero"},
		{line: "COLLECT -1 x", wantErr: "not a decimal number"},
		{line: "COLLECT 12", wantErr: "want COLLECT <size> <valueName>"},
		{line: "OPEN now", wantErr: "takes no arguments"},
		{line: "OPEN ", wantErr: "takes no arguments"},
		{line: "HELLO", wantErr: "missing number"},
		{line: "collect 1 x", wantErr: "unknown request"},
		{line: "", wantErr: "unknown request"},
		{line: "COLLECT 1 " + strings.Repeat("x", MaxLine), wantErr: "longer than 1023 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := parseRequest([]byte(tt.line))
			if tt.wantErr != "" {
				var pe *ProtocolError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a ProtocolError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("= %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestParseResponse(t *testing.T) {
	tests := []struct {
		line    string
		want    response
		wantErr string
	}{
		{line: "HELLO 1", want: response{kind: respHello, version: 1}},
		{line: "OK", want: response{kind: respOK}},
		{line: "OK 0 0", want: response{kind: respOK, counts: true}},
		{line: "OK 1736 1\r", want: response{kind: respOK, counts: true, n: 1736, numObjects: 1}},
		{line: "MORE", want: response{kind: respMore}},
		{line: "ERR disk gone away", want: response{kind: respErr, text: "disk gone away"}},
		{line: "ERR", want: response{kind: respErr}},
		{line: "ERR \x1b[2Jgone\r\r", want: response{kind: respErr, text: "\uFFFD[2Jgone\uFFFD"}},
		{line: "ERR bad \xff byte", want: response{kind: respErr, text: "bad \uFFFD byte"}},
		{line: "OK 12", wantErr: "want OK or OK <n> <numObjects>"},
		{line: "OK 12 1 9", wantErr: "object count"},
		{line: "OK 99999999999 1", wantErr: "does not fit"},
		{line: "OK  1", wantErr: "missing number"},
		{line: "MORE 10", wantErr: "no arguments"},
		{line: "HELLO x", wantErr: "not a decimal"},
		{line: "ok", wantErr: "unknown response"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := parseResponse([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("= %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestAppendRequest(t *testing.T) {
	tests := []struct {
		r    request
		want string
	}{
		{request{verb: verbHello, version: 1}, "HELLO 1\n"},
		{request{verb: verbOpen}, "OPEN\n"},
		{request{verb: verbCollect, size: 4096, valueName: "2 4"}, "COLLECT 4096 2 4\n"},
		{request{verb: verbCollect, size: 0}, "COLLECT 0 \n"},
		{request{verb: verbClose}, "CLOSE\n"},
	}
	for _, tt := range tests {
		got := string(appendRequest(nil, tt.r))
		if got != tt.want {
			t.Errorf("appendRequest(%+v) = %q, want %q", tt.r, got, tt.want)
		}
		back, err := parseRequest([]byte(strings.TrimSuffix(got, "\n")))
		if err != nil || back != tt.r {
			t.Errorf("round trip of %q = %+v, %v", got, back, err)
		}
	}
}

func TestOneLine(t *testing.T) {
	s := oneLine("a\nb\r\nc" + strings.Repeat("é", MaxLine))
	if strings.ContainsAny(s, "\r\n") || len(s)+len("ERR \n") > MaxLine || !strings.HasPrefix(s, "a b c") {
		t.Fatalf("oneLine = %q (%d bytes)", s[:min(len(s), 20)], len(s))
	}
	if !bytes.Equal([]byte(s), bytes.ToValidUTF8([]byte(s), nil)) {
		t.Fatal("oneLine cut a UTF-8 sequence")
	}
}

func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"HELLO 1", "OPEN", "CLOSE", "COLLECT 65536 Global", "COLLECT 8 2 4", "COLLECT 0 ", "OK 1 1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := parseRequest(line)
		if err != nil {
			return
		}
		// A request that parses must survive its own wire form.
		w := appendRequest(nil, r)
		back, err := parseRequest(w[:len(w)-1])
		if err != nil || back != r {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", line, r, w, back, err)
		}
	})
}

func FuzzParseResponse(f *testing.F) {
	for _, s := range []string{"HELLO 1", "OK", "OK 0 0", "OK 1736 1", "MORE", "ERR x y", "OK 4294967295 4294967295"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // readLine never hands over a line break
		}
		r, err := parseResponse(line)
		if err != nil {
			return
		}
		// A response that parses must survive its own wire form, which
		// must fit on a line.
		w := appendResponse(nil, r)
		if len(w) > MaxLine {
			t.Fatalf("%q -> %+v -> %d bytes on the wire", line, r, len(w))
		}
		back, err := parseResponse(w[:len(w)-1])
		if err != nil || back != r {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", line, r, w, back, err)
		}
		if r.counts && r.kind != respOK {
			t.Fatalf("%q: counts on a %d", line, r.kind)
		}
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// FuzzCollectAnswer feeds the engine's side an arbitrary answer to
// COLLECT with a buffer of size bytes. Whatever the provider sends, the
// engine reads at most its header line and the buffer's worth of payload,
// never accepts more bytes than the buffer, accepts exactly the payload the
// header announced, and leaves the buffer untouched on MORE.
func FuzzCollectAnswer(f *testing.F) {
	f.Add([]byte("OK 3 1\nabc"), uint16(8))
	f.Add([]byte("OK 9 1\nabc"), uint16(8))
	f.Add([]byte("OK 0 0\n"), uint16(0))
	f.Add([]byte("MORE\n"), uint16(4))
	f.Add([]byte("ERR disk gone\r\n"), uint16(4))
	f.Add([]byte("OK 2 1\r\nxyz"), uint16(2))
	f.Add(bytes.Repeat([]byte("x"), 2*MaxLine), uint16(16))
	f.Fuzz(func(t *testing.T, stream []byte, size uint16) {
		buf := make([]byte, size)
		cr := &countingReader{r: bytes.NewReader(stream)}
		br := bufio.NewReaderSize(cr, MaxLine)
		var n int
		var k uint32
		err := readResponse(br, collectAnswer(br, buf, &n, &k))
		if limit := int(size) + 2*MaxLine; cr.n > limit {
			t.Fatalf("read %d bytes of the stream for a %d-byte buffer", cr.n, size)
		}
		switch {
		case errors.Is(err, perfdata.ErrMoreData):
			if !bytes.Equal(buf, make([]byte, size)) {
				t.Fatal("buffer written on MORE")
			}
		case err == nil:
			// What was accepted, computed from the stream alone.
			line, rest, ok := bytes.Cut(stream, []byte("\n"))
			f := strings.Fields(strings.TrimSuffix(string(line), "\r"))
			if !ok || len(f) != 3 || f[0] != "OK" {
				t.Fatalf("accepted %q", stream)
			}
			wantN, err1 := strconv.ParseUint(f[1], 10, 32)
			wantK, err2 := strconv.ParseUint(f[2], 10, 32)
			if err1 != nil || err2 != nil || uint64(n) != wantN || uint64(k) != wantK {
				t.Fatalf("%q: accepted n=%d k=%d", line, n, k)
			}
			if n > len(buf) || n > len(rest) || !bytes.Equal(buf[:n], rest[:n]) {
				t.Fatalf("%q: %d bytes accepted for a %d-byte buffer, payload %q", line, n, size, buf[:min(n, len(buf))])
			}
		}
	})
}
