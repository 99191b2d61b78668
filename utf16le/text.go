package utf16le

import "fmt"

// Text decodes a text file as Windows tools save one (counter lists,
// settings files, Data Collector Set XML, instrumentation manifests) into
// UTF-8: UTF-16 in either byte order with a byte-order mark (what
// PowerShell's Out-File and Windows' exports write), UTF-16 without one
// when the first character is ASCII (its other byte zero: "<\x00" of an
// XML file saved by a Windows tool), and UTF-8 with or without a mark.
// Text keeps text without a mark as it is (a caller checks it is UTF-8);
// NewTextReader also reads ANSI code pages. Both decode with the same
// decoders, the one decoder of such files: an odd length or an unpaired
// surrogate is an error naming its byte offset, never a silent U+FFFD.
func Text(b []byte) (string, error) {
	cp, start := UTF16LE, 0
	switch {
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return string(b[3:]), nil
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		start = 2
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		cp, start = UTF16BE, 2
	case len(b) >= 2 && b[0] != 0 && b[0] < 0x80 && b[1] == 0:
		// UTF-16LE without a mark.
	case len(b) >= 2 && b[0] == 0 && b[1] != 0 && b[1] < 0x80:
		cp = UTF16BE // UTF-16BE without a mark
	default:
		return string(b), nil
	}
	if (len(b)-start)%2 != 0 {
		return "", fmt.Errorf("UTF-16 text of %d bytes: an odd number", len(b)-start)
	}
	out, _, bad := newDecoder(cp).decode(make([]byte, 0, len(b)-start), b[start:], true)
	if bad != nil {
		return "", fmt.Errorf("invalid UTF-16 at byte %d: %s", start+bad.at, bad.msg)
	}
	return string(out), nil
}
