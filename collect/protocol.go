package collect

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Protocol constants (PROTOCOL.md).
const (
	// ProtocolVersion is the version of the out-of-process protocol this
	// package speaks; the HELLO exchange agrees on it.
	ProtocolVersion = 1

	// MaxLine is the longest header line either side may send, newline
	// included. A longer line is a protocol violation.
	MaxLine = 1024

	// MaxServeBuffer caps the buffer Serve allocates for one COLLECT,
	// whatever size the engine offers: a provider whose data does not fit
	// answers MORE.
	MaxServeBuffer = 64 << 20
)

// Request verbs and response words.
const (
	verbHello   = "HELLO"
	verbOpen    = "OPEN"
	verbCollect = "COLLECT"
	verbClose   = "CLOSE"
	wordOK      = "OK"
	wordMore    = "MORE"
	wordErr     = "ERR"
)

// ProtocolError is a violation of the out-of-process protocol by the other
// side: a malformed or oversized line, an unexpected answer, a response
// larger than the buffer offered.
type ProtocolError struct {
	Line string // the offending line, quoted and shortened for the message
	Msg  string
}

func (e *ProtocolError) Error() string {
	if e.Line == "" {
		return "protocol violation: " + e.Msg
	}
	return fmt.Sprintf("protocol violation: %s: %s", e.Line, e.Msg)
}

func protoErr(line []byte, format string, args ...any) *ProtocolError {
	return &ProtocolError{Line: quoteLine(line), Msg: fmt.Sprintf(format, args...)}
}

// quoteLine quotes a line for an error message, at most 80 bytes of it.
func quoteLine(line []byte) string {
	if line == nil {
		return ""
	}
	if len(line) > 80 {
		return strconv.Quote(string(line[:80])) + "..."
	}
	return strconv.Quote(string(line))
}

// request is one parsed request line.
type request struct {
	verb      string // verbHello, verbOpen, verbCollect or verbClose
	version   uint32 // HELLO
	size      uint32 // COLLECT: bytes offered
	valueName string // COLLECT
}

// parseRequest parses one request line (without its newline).
//
//	HELLO <version>
//	OPEN
//	COLLECT <size> <valueName...>
//	CLOSE
func parseRequest(line []byte) (request, error) {
	line = trimCR(line)
	if len(line) >= MaxLine {
		return request{}, protoErr(line[:MaxLine/8], "request line longer than %d bytes", MaxLine-1)
	}
	verb, rest, _ := bytes.Cut(line, []byte(" "))
	switch string(verb) {
	case verbHello:
		v, err := parseUint32(rest)
		if err != nil {
			return request{}, protoErr(line, "HELLO version: %v", err)
		}
		return request{verb: verbHello, version: v}, nil
	case verbOpen, verbClose:
		if len(rest) != 0 || bytes.IndexByte(line, ' ') >= 0 {
			return request{}, protoErr(line, "%s takes no arguments", verb)
		}
		return request{verb: string(verb)}, nil
	case verbCollect:
		sz, name, ok := bytes.Cut(rest, []byte(" "))
		if !ok {
			return request{}, protoErr(line, "want COLLECT <size> <valueName>")
		}
		n, err := parseUint32(sz)
		if err != nil {
			return request{}, protoErr(line, "COLLECT size: %v", err)
		}
		if bytes.ContainsAny(name, "\r\n") {
			return request{}, protoErr(line, "value name contains a line break")
		}
		return request{verb: verbCollect, size: n, valueName: string(name)}, nil
	}
	return request{}, protoErr(line, "unknown request (want HELLO, OPEN, COLLECT or CLOSE)")
}

// appendRequest appends the wire form of r, newline included.
func appendRequest(b []byte, r request) []byte {
	b = append(b, r.verb...)
	switch r.verb {
	case verbHello:
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(r.version), 10)
	case verbCollect:
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(r.size), 10)
		b = append(b, ' ')
		b = append(b, r.valueName...)
	}
	return append(b, '\n')
}

// respKind is the first word of a response.
type respKind int

const (
	respOK    respKind = iota + 1 // OK, or OK <n> <numObjects>
	respMore                      // MORE
	respErr                       // ERR <text>
	respHello                     // HELLO <version>
)

// response is one parsed response line.
type response struct {
	kind       respKind
	counts     bool   // OK carried <n> <numObjects>
	n          uint32 // bytes that follow the line
	numObjects uint32
	version    uint32
	text       string // ERR
}

// parseResponse parses one response line (without its newline).
//
//	HELLO <version>
//	OK
//	OK <n> <numObjects>      followed by exactly n bytes
//	MORE
//	ERR <text>
func parseResponse(line []byte) (response, error) {
	line = trimCR(line)
	if len(line) >= MaxLine {
		return response{}, protoErr(line[:MaxLine/8], "response line longer than %d bytes", MaxLine-1)
	}
	word, rest, hasRest := bytes.Cut(line, []byte(" "))
	switch string(word) {
	case wordOK:
		if !hasRest {
			return response{kind: respOK}, nil
		}
		a, b, ok := bytes.Cut(rest, []byte(" "))
		if !ok {
			return response{}, protoErr(line, "want OK or OK <n> <numObjects>")
		}
		n, err := parseUint32(a)
		if err != nil {
			return response{}, protoErr(line, "byte count: %v", err)
		}
		k, err := parseUint32(b)
		if err != nil {
			return response{}, protoErr(line, "object count: %v", err)
		}
		return response{kind: respOK, counts: true, n: n, numObjects: k}, nil
	case wordMore:
		if hasRest {
			return response{}, protoErr(line, "MORE takes no arguments")
		}
		return response{kind: respMore}, nil
	case wordErr:
		// Replacing what is not printable can lengthen the text (one
		// byte becomes U+FFFD's three): cut it to fit a line again.
		return response{kind: respErr, text: oneLine(printable(rest))}, nil
	case verbHello:
		v, err := parseUint32(rest)
		if err != nil {
			return response{}, protoErr(line, "HELLO version: %v", err)
		}
		return response{kind: respHello, version: v}, nil
	}
	return response{}, protoErr(line, "unknown response (want OK, MORE, ERR or HELLO)")
}

// appendResponse appends the wire form of r, newline included. An ERR
// text must already fit on one line (oneLine).
func appendResponse(b []byte, r response) []byte {
	switch r.kind {
	case respOK:
		b = append(b, wordOK...)
		if r.counts {
			b = append(b, ' ')
			b = strconv.AppendUint(b, uint64(r.n), 10)
			b = append(b, ' ')
			b = strconv.AppendUint(b, uint64(r.numObjects), 10)
		}
	case respMore:
		b = append(b, wordMore...)
	case respErr:
		b = append(b, wordErr+" "...)
		b = append(b, r.text...)
	case respHello:
		b = append(b, verbHello+" "...)
		b = strconv.AppendUint(b, uint64(r.version), 10)
	}
	return append(b, '\n')
}

// parseUint32 parses a plain decimal number: digits only, no sign, no
// leading zeros except "0" itself, at most 2^32-1.
func parseUint32(b []byte) (uint32, error) {
	if len(b) == 0 {
		return 0, errors.New("missing number")
	}
	if len(b) > 1 && b[0] == '0' {
		return 0, fmt.Errorf("%q has a leading zero", b)
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a decimal number", b)
		}
	}
	v, err := strconv.ParseUint(string(b), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q does not fit in 32 bits", b)
	}
	return uint32(v), nil
}

// printable returns the text of an ERR line as it may reach a log or a
// terminal: invalid UTF-8 and control characters (escape sequences, carriage
// returns) become U+FFFD, so a provider cannot forge or hide lines there.
func printable(b []byte) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(string(b), string(utf8.RuneError)))
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// oneLine makes an error text fit on an ERR line: newlines become spaces
// and the text is cut so the whole line stays under MaxLine.
func oneLine(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	if max := MaxLine - len(wordErr) - 2; len(s) > max {
		s = strings.ToValidUTF8(s[:max], "")
	}
	return s
}
