package binlog

import "encoding/binary"

// The limits a reader applies to a log (FORMAT.md, "Limits"), stated once:
// the reader refuses what is past them, and the writer never writes it
// (it pads a record or payload that needs more room, or refuses the
// sample with an error). Each bounds one record and the sample it
// rebuilds, never the file's history, so a long log of large idle
// samples reads whole, and a hostile file still costs a reader memory
// and time linear in its size.
const (
	// maxRecord is the longest record (its length L), maxPayload the
	// longest payload (decompressed).
	maxRecord  = 256 << 20
	maxPayload = 256 << 20

	// A compressed body of B bytes may claim a payload of at most
	// claimPerByte × B + claimBase bytes (see claimFits).
	claimPerByte = 64
	claimBase    = 1 << 20

	// A record of L bytes may make a reader produce at most
	// allowPerByte × L + allowPerRecord bytes: its payload decompressed
	// (compressed records) and the blocks it rebuilds (SAMPLE records).
	// See recordAllowance.
	allowPerByte   = 4096
	allowPerRecord = 64 << 10

	// A sample rebuilds at most last + budgetPerByte × n + budgetSlack
	// bytes from a payload of n bytes, budgetFirst instead of budgetSlack
	// for the first sample of an epoch (see sampleBudget).
	budgetPerByte = 256
	budgetSlack   = 64 << 10
	budgetFirst   = 1 << 20

	// maxCounterBlock is the longest counter block of layout 2.
	maxCounterBlock = 1 << 31

	// maxUTCOffset bounds an INFO record's UTC offset (seconds, either way).
	maxUTCOffset = 24 * 3600
)

// claimFits reports whether a compressed body of body bytes may claim a
// payload of p bytes.
func claimFits(p, body uint64) bool {
	return p <= maxPayload && p <= claimPerByte*body+claimBase
}

// recordAllowance is the most bytes a record of length bytes may make a
// reader produce (its decompressed payload and rebuilt blocks).
func recordAllowance(length int64) int64 {
	return allowPerByte*length + allowPerRecord
}

// recordNeed is the shortest record whose allowance covers produced bytes.
func recordNeed(produced int64) int64 {
	if produced <= allowPerRecord {
		return 0
	}
	return (produced - allowPerRecord + allowPerByte - 1) / allowPerByte
}

// sampleBudget is the most bytes a sample whose payload has n bytes may
// rebuild after a sample of last bytes in the same epoch (0 for the first).
// Hostile payloads cannot make a small file rebuild huge samples; a writer
// pads a payload that would need more.
func sampleBudget(last, n int) int {
	slack := budgetSlack
	if last == 0 {
		slack = budgetFirst
	}
	return last + budgetPerByte*n + slack
}

// Padding of a compressed body: Zstandard skippable frames (RFC 8878,
// 3.1.2) between the payload length and the frame, which a reader skips.
const (
	skipMagic    = 0x184D2A50 // the first of the 16 skippable magic numbers
	skipMagicMax = 0x184D2A5F
	skipHdrLen   = 8 // magic and frame size
)

// appendSkippable appends a skippable frame of n bytes in all (n >=
// skipHdrLen) holding zeros.
func appendSkippable(dst []byte, n int) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, skipMagic)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n-skipHdrLen))
	return append(dst, make([]byte, n-skipHdrLen)...)
}

// skipSkippable returns b after the skippable frames it starts with; ok is
// false when one of them runs past b's end.
func skipSkippable(b []byte) (rest []byte, ok bool) {
	for len(b) >= 4 {
		m := binary.LittleEndian.Uint32(b)
		if m < skipMagic || m > skipMagicMax {
			break
		}
		if len(b) < skipHdrLen {
			return nil, false
		}
		n := uint64(binary.LittleEndian.Uint32(b[4:]))
		if n > uint64(len(b)-skipHdrLen) {
			return nil, false
		}
		b = b[skipHdrLen+n:]
	}
	return b, true
}
