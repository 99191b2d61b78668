package collect

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestServeConversation(t *testing.T) {
	objs, n := windowsObjects(t, "s01-0004-Memory.bin")
	p := &fixedProc{objs: objs, n: n, indexes: []uint32{4}}
	in := "HELLO 1\nOPEN\nCOLLECT 100 Global\nCOLLECT 65536 Global\nCOLLECT 65536 238 2\nCOLLECT 65536 2 4\nCLOSE\n"
	var out bytes.Buffer
	if err := Serve(strings.NewReader(in), &out, p); err != nil {
		t.Fatal(err)
	}
	// The expected stream, written out from PROTOCOL.md.
	var want bytes.Buffer
	want.WriteString("HELLO 1\nOK\nMORE\n")
	want.WriteString("OK " + strconv.Itoa(len(objs)) + " 1\n")
	want.Write(objs)
	want.WriteString("OK 0 0\n")
	want.WriteString("OK " + strconv.Itoa(len(objs)) + " 1\n")
	want.Write(objs)
	want.WriteString("OK\n")
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatalf("output differs:\n got %q\nwant %q", trunc(out.Bytes()), trunc(want.Bytes()))
	}
	wantCalls := []string{"100 Global", "65536 Global", "65536 238 2", "65536 2 4"}
	if strings.Join(p.calls, "|") != strings.Join(wantCalls, "|") {
		t.Errorf("calls = %q, want %q", p.calls, wantCalls)
	}
	if p.closed != 1 {
		t.Errorf("Close called %d times, want 1", p.closed)
	}
}

func TestServeFailures(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		err     error // of the procedure
		wantOut string
		wantErr string // of Serve; empty = nil
		closed  int
	}{
		{name: "end of input closes", in: "HELLO 1\nOPEN\n", wantOut: "HELLO 1\nOK\n", closed: 1},
		{name: "newer engine gets our version", in: "HELLO 7\n", wantOut: "HELLO 1\n"},
		{name: "procedure error", in: "HELLO 1\nOPEN\nCOLLECT 64 Global\n", err: errors.New("disk\ngone"),
			wantOut: "HELLO 1\nOK\nERR disk gone\n", closed: 1},
		{name: "no hello", in: "OPEN\n", wantOut: `ERR protocol violation: "OPEN": first request must be HELLO` + "\n",
			wantErr: "first request must be HELLO"},
		{name: "version 0", in: "HELLO 0\n", wantOut: "ERR no protocol version below 1\n", wantErr: "version 0"},
		{name: "unknown", in: "HELLO 1\nPING\n", wantOut: "HELLO 1\n" + `ERR protocol violation: "PING": unknown request (want HELLO, OPEN, COLLECT or CLOSE)` + "\n",
			wantErr: "unknown request"},
		{name: "overlong line", in: "HELLO 1\nCOLLECT 1 " + strings.Repeat("9", 2*MaxLine) + "\n",
			wantOut: "HELLO 1\nERR line longer than 1023 bytes\n", wantErr: "longer than"},
		{name: "unterminated", in: "HELLO 1\nOPEN", wantOut: "HELLO 1\nERR input ends inside a line: unexpected EOF\n", wantErr: "inside a line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &fixedProc{indexes: []uint32{4}, err: tt.err}
			var out bytes.Buffer
			err := Serve(strings.NewReader(tt.in), &out, p)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Serve = %v, want error containing %q", err, tt.wantErr)
			}
			if out.String() != tt.wantOut {
				t.Errorf("output = %q, want %q", out.String(), tt.wantOut)
			}
			if p.closed != tt.closed {
				t.Errorf("Close called %d times, want %d", p.closed, tt.closed)
			}
		})
	}
}

// liarProc reports more bytes than its buffer holds.
type liarProc struct{ fixedProc }

func (*liarProc) Collect(_ context.Context, _ string, buf []byte) (int, uint32, error) {
	return len(buf) + 1, 1, nil
}

func TestServeRejectsOwnOverrun(t *testing.T) {
	var out bytes.Buffer
	if err := Serve(strings.NewReader("HELLO 1\nCOLLECT 16 Global\n"), &out, &liarProc{}); err != nil {
		t.Fatal(err)
	}
	if want := "HELLO 1\nERR procedure returned 17 bytes for a 16-byte buffer\n"; out.String() != want {
		t.Fatalf("output = %q, want %q", out.String(), want)
	}
}

func trunc(b []byte) []byte {
	if len(b) > 120 {
		return b[:120]
	}
	return b
}

// Serve must survive any request stream; everything it writes must be
// well-formed responses the engine's parser accepts, at most one per
// request line; and the procedure is closed when the input ends.
func FuzzServe(f *testing.F) {
	objs, n := windowsObjects(f, "s01-0004-Memory.bin")
	f.Add([]byte("HELLO 1\nOPEN\nCOLLECT 100 Global\nCOLLECT 65536 Global\nCLOSE\n"))
	f.Add([]byte("HELLO 1\nCOLLECT 4294967295 4\n"))
	f.Add([]byte("OPEN\n"))
	f.Add([]byte("HELLO 1\nCOLLECT 0 \r\nCLOSE"))
	f.Fuzz(func(t *testing.T, in []byte) {
		p := &fixedProc{objs: objs, n: n, indexes: []uint32{4}}
		var out bytes.Buffer
		Serve(bytes.NewReader(in), &out, p)
		b := out.Bytes()
		answers := 0
		for ; len(b) > 0; answers++ {
			i := bytes.IndexByte(b, '\n')
			if i < 0 || i >= MaxLine {
				t.Fatalf("unterminated or overlong response line %q", trunc(b))
			}
			r, err := parseResponse(b[:i])
			if err != nil {
				t.Fatalf("Serve wrote %q: %v", b[:i], err)
			}
			b = b[i+1:]
			if r.counts {
				if int(r.n) > len(b) || !bytes.Equal(b[:r.n], objs[:r.n]) {
					t.Fatalf("payload of %d bytes wrong", r.n)
				}
				b = b[r.n:]
			}
		}
		if lines := bytes.Count(in, []byte("\n")) + 1; answers > lines {
			t.Fatalf("%d answers to %d request lines", answers, lines)
		}
		if p.opened {
			t.Fatal("procedure left open at the end of input")
		}
	})
}
