package collect

import (
	"bytes"
	"errors"
	"strings"
	"testing"
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
		r, err := parseResponse(line)
		if err != nil {
			return
		}
		if r.kind < respOK || r.kind > respHello {
			t.Fatalf("%q: kind %d", line, r.kind)
		}
		if r.counts && r.kind != respOK {
			t.Fatalf("%q: counts on a %d", line, r.kind)
		}
	})
}
