package collect

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/perfcounters/perfcounters/perfdata"
)

// Serve is the provider's side of the out-of-process protocol for Go
// programs: it reads requests from r (the program's stdin), calls p and
// writes the responses to w (its stdout), until r ends. A provider's main
// function is typically
//
//	if err := collect.Serve(os.Stdin, os.Stdout, myProcedure); err != nil {
//		log.Fatal(err)
//	}
//
// Serve answers HELLO with ProtocolVersion, calls p.Open on OPEN, p.Collect
// on COLLECT with a buffer of the size offered (at most MaxServeBuffer) and
// p.Close on CLOSE, and on the end of input if p was opened and not closed.
// Errors of p travel to the engine as ERR lines; Serve itself returns an
// error only when the stream breaks or the engine violates the protocol
// (after answering ERR where it still can). The context passed to p is
// cancelled when Serve returns.
func Serve(r io.Reader, w io.Writer, p Procedure) (err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	br := bufio.NewReaderSize(r, MaxLine)
	bw := bufio.NewWriter(w)
	var (
		buf    []byte
		hello  bool
		opened bool
		out    []byte
	)
	defer func() {
		if opened {
			if cerr := p.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("collect: serve: close at end of input: %w", cerr)
			}
		}
	}()
	for {
		line, rerr := readLine(br)
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			var pe *ProtocolError
			if errors.As(rerr, &pe) {
				writeErr(bw, pe.Msg)
			}
			return fmt.Errorf("collect: serve: %w", rerr)
		}
		req, perr := parseRequest(line)
		if perr == nil && !hello && req.verb != verbHello {
			perr = protoErr(line, "first request must be HELLO")
		}
		if perr != nil {
			writeErr(bw, perr.Error())
			return fmt.Errorf("collect: serve: %w", perr)
		}
		out = out[:0]
		switch req.verb {
		case verbHello:
			if req.version < 1 {
				writeErr(bw, fmt.Sprintf("no protocol version below %d", req.version+1))
				return fmt.Errorf("collect: serve: engine offers protocol version %d", req.version)
			}
			hello = true
			out = appendResponse(out, response{kind: respHello, version: min(req.version, ProtocolVersion)})
		case verbOpen:
			if err := p.Open(ctx); err != nil {
				out = appendErr(out, err.Error())
				break
			}
			opened = true
			out = appendResponse(out, response{kind: respOK})
		case verbClose:
			opened = false
			if err := p.Close(); err != nil {
				out = appendErr(out, err.Error())
				break
			}
			out = appendResponse(out, response{kind: respOK})
		case verbCollect:
			size := int(min(req.size, MaxServeBuffer))
			if cap(buf) < size {
				buf = make([]byte, size)
			}
			buf = buf[:size]
			n, k, err := p.Collect(ctx, req.valueName, buf)
			switch {
			case errors.Is(err, perfdata.ErrMoreData):
				out = appendResponse(out, response{kind: respMore})
			case err != nil:
				out = appendErr(out, err.Error())
			case n < 0 || n > len(buf):
				out = appendErr(out, fmt.Sprintf("procedure returned %d bytes for a %d-byte buffer", n, len(buf)))
			default:
				out = appendResponse(out, response{kind: respOK, counts: true, n: uint32(n), numObjects: k})
				if _, err := bw.Write(out); err != nil {
					return fmt.Errorf("collect: serve: %w", err)
				}
				out = out[:0]
				if _, err := bw.Write(buf[:n]); err != nil {
					return fmt.Errorf("collect: serve: %w", err)
				}
			}
		}
		if _, err := bw.Write(out); err != nil {
			return fmt.Errorf("collect: serve: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("collect: serve: %w", err)
		}
	}
}

func appendErr(b []byte, text string) []byte {
	return appendResponse(b, response{kind: respErr, text: oneLine(text)})
}

// writeErr answers ERR as a last word before Serve gives up; the write
// error, if any, does not matter any more.
func writeErr(bw *bufio.Writer, text string) {
	bw.Write(appendErr(nil, text))
	bw.Flush()
}

// readLine reads one line of at most MaxLine bytes (newline included) and
// returns it without the newline. The slice is valid until the next read.
// io.EOF means the input ended cleanly between lines.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	switch {
	case err == nil:
		return line[:len(line)-1], nil
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, protoErr(line[:MaxLine/8], "line longer than %d bytes", MaxLine-1)
	case err == io.EOF && len(line) == 0:
		return nil, io.EOF
	case err == io.EOF:
		return nil, protoErr(line, "input ends inside a line: %v", io.ErrUnexpectedEOF)
	}
	return nil, err
}
