package utf16le

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Text decodes a text file as Windows tools save one (counter lists,
// settings files, Data Collector Set XML, instrumentation manifests) into
// UTF-8: UTF-16 in either byte order with a byte-order mark (what
// PowerShell's Out-File and Windows' exports write), UTF-16 without one
// when the first character is ASCII (its other byte zero: "<\x00" of an
// XML file saved by a Windows tool), and UTF-8 with or without a mark.
// The one decoder of such files: an odd length or an unpaired surrogate
// is an error naming its byte offset, never a silent U+FFFD.
func Text(b []byte) (string, error) {
	be, start := false, 0
	switch {
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return string(b[3:]), nil
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		start = 2
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		be, start = true, 2
	case len(b) >= 2 && b[0] != 0 && b[0] < 0x80 && b[1] == 0:
		// UTF-16LE without a mark.
	case len(b) >= 2 && b[0] == 0 && b[1] != 0 && b[1] < 0x80:
		be = true // UTF-16BE without a mark
	default:
		return string(b), nil
	}
	if (len(b)-start)%2 != 0 {
		return "", fmt.Errorf("UTF-16 text of %d bytes: an odd number", len(b)-start)
	}
	unit := func(i int) uint16 {
		if be {
			return uint16(b[i])<<8 | uint16(b[i+1])
		}
		return uint16(b[i]) | uint16(b[i+1])<<8
	}
	out := make([]byte, 0, len(b)-start)
	for i := start; i < len(b); i += 2 {
		u := unit(i)
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00:
			if i+3 >= len(b) {
				return "", fmt.Errorf("invalid UTF-16 at byte %d: a high surrogate at the end", i)
			}
			lo := unit(i + 2)
			if lo < 0xDC00 || lo >= 0xE000 {
				return "", fmt.Errorf("invalid UTF-16 at byte %d: a high surrogate without its low one", i)
			}
			out = utf8.AppendRune(out, utf16.DecodeRune(rune(u), rune(lo)))
			i += 2
		case utf16.IsSurrogate(rune(u)):
			return "", fmt.Errorf("invalid UTF-16 at byte %d: a low surrogate without its high one", i)
		default:
			out = utf8.AppendRune(out, rune(u))
		}
	}
	return string(out), nil
}
