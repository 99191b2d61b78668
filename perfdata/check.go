package perfdata

import "errors"

// CheckObjects runs Perflib's integrity tests (ExtCounterTestLevel, seed
// 002) on what a V1 provider's Collect procedure returned: objs is exactly
// the bytes it reported (pcbTotalBytes), numObjects its object count. Each
// failure is a *FormatError wrapping one named error (errors.Is).
//
// Levels 1 and 2 (lengths): the counts agree (no bytes without objects,
// ErrCountMismatch), and the object TotalByteLength chain fits inside the
// bytes returned, advancing at every step (ErrObjectTooShort,
// ErrObjectOverrun). Level 1 also follows the pointers inside: the lengths
// add up exactly to the byte count (ErrTotalMismatch), each object's
// header, definitions and counter offsets are consistent (ErrObjectInvalid),
// and the instance ByteLength chain stays inside its object
// (ErrInstanceOverrun) and ends exactly at its end (ErrInstanceChain).
// Levels 3 and 4 (the default) check nothing.
//
// What belongs to the engine, not here: checking that the returned pointer
// advanced by exactly pcbTotalBytes, that it stayed inside the buffer it
// was given, and that the guard areas around that buffer are intact — only
// the caller that owns the buffer can see those. The alignment test, which
// Perflib runs unless Configuration Flags 0x01 is set, is CheckAlignment.
func CheckObjects(objs []byte, numObjects uint32, level int) error {
	if level != 1 && level != 2 {
		return nil
	}
	if (numObjects == 0) != (len(objs) == 0) {
		return cerr(ErrCountMismatch, 0, sObject, "", 0, "%d objects in %d bytes", numObjects, len(objs))
	}
	at := 0
	for i := uint32(0); i < numObjects; i++ {
		if len(objs)-at < ObjectTypeSize {
			return cerr(ErrObjectOverrun, at, sObject, "", 0, "object %d of %d starts past the %d bytes returned", i, numObjects, len(objs))
		}
		total := le.Uint32(objs[at+oTotalByteLength:])
		if total < ObjectTypeSize {
			return cerr(ErrObjectTooShort, at, sObject, "TotalByteLength", int64(total), "smaller than the %d-byte structure", ObjectTypeSize)
		}
		if uint64(total) > uint64(len(objs)-at) {
			return cerr(ErrObjectOverrun, at, sObject, "TotalByteLength", int64(total), "runs past the %d bytes returned", len(objs))
		}
		if level == 1 {
			if err := checkObject(objs, at, int(total)); err != nil {
				return err
			}
		}
		at += int(total)
	}
	if level == 1 && at != len(objs) {
		return cerr(ErrTotalMismatch, at, sObject, "", 0, "object lengths add up to %d, the provider returned %d bytes", at, len(objs))
	}
	return nil
}

// checkObject is the level-1 test of one object at objs[at:at+total].
func checkObject(objs []byte, at, total int) error {
	end := at + total
	// Instance-chain faults are told apart from other inconsistencies, so
	// they are checked first, with the same walk the reader uses.
	o := objs[at:end]
	defLen := le.Uint32(o[oDefinitionLength:])
	ni := int32(le.Uint32(o[oNumInstances:]))
	if defLen <= uint32(total) {
		q := at + int(defLen)
		switch {
		case ni > 0:
			for i := int32(0); i < ni; i++ {
				if end-q < InstanceDefSize {
					return cerr(ErrInstanceOverrun, q, sInstance, "", 0, "instance %d of %d starts past the end of the object at offset %#x", i, ni, end)
				}
				bl := le.Uint32(objs[q:])
				if bl < InstanceDefSize || uint64(bl)+CounterBlockLen > uint64(end-q) {
					return cerr(ErrInstanceOverrun, q, sInstance, "ByteLength", int64(bl), "instance %d runs past the end of the object at offset %#x", i, end)
				}
				cq := q + int(bl)
				cl := le.Uint32(objs[cq:])
				if cl < CounterBlockLen || uint64(cl) > uint64(end-cq) {
					return cerr(ErrInstanceOverrun, cq, sBlock, "ByteLength", int64(cl), "counter block of instance %d runs past the end of the object at offset %#x", i, end)
				}
				q = cq + int(cl)
			}
		case ni == NoInstances:
			if end-q >= CounterBlockLen {
				cl := le.Uint32(objs[q:])
				if cl >= CounterBlockLen && uint64(cl) <= uint64(end-q) {
					q += int(cl)
				}
			}
		}
		if (ni > 0 || ni == NoInstances) && q != end {
			return cerr(ErrInstanceChain, at+oTotalByteLength, sObject, "TotalByteLength", int64(total), "the instance chain ends at offset %#x, not at the object end %#x", q, end)
		}
	}
	if _, err := validateObject(objs, at, end); err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			c := *fe
			c.Err = ErrObjectInvalid
			return &c
		}
		return err
	}
	return nil
}

// CheckAlignment reports the first length in objs (n objects, as for
// CheckObjects) that Windows keeps at a multiple of 8 and that is not:
// PERF_OBJECT_TYPE.TotalByteLength, PERF_INSTANCE_DEFINITION.ByteLength and
// PERF_COUNTER_BLOCK.ByteLength. The error wraps ErrMisaligned. Perflib
// runs this test on plug-in buffers unless Configuration Flags 0x01 is set;
// Parse does not require it. objs must already pass CheckObjects level 1
// or Parse-level validation; malformed input yields a structural error.
func CheckAlignment(objs []byte, n uint32) error {
	if _, err := walkObjects(objs, 0, n, len(objs)); err != nil {
		return err
	}
	at := 0
	for i := uint32(0); i < n; i++ {
		o := newObject(objs[at : at+int(le.Uint32(objs[at:]))])
		if t := o.TotalByteLength(); t%8 != 0 {
			return misaligned(at, sObject, "TotalByteLength", t)
		}
		if o.NumInstances() == NoInstances {
			if l := o.SingleBlock().ByteLength(); l%8 != 0 {
				return misaligned(at+int(o.DefinitionLength()), sBlock, "ByteLength", l)
			}
		}
		q := at + int(o.DefinitionLength())
		for it := o.Instances(); it.Next(); {
			in := it.Instance()
			if in.bl%8 != 0 {
				return misaligned(q, sInstance, "ByteLength", uint32(in.bl))
			}
			if l := in.Block().ByteLength(); l%8 != 0 {
				return misaligned(q+in.bl, sBlock, "ByteLength", l)
			}
			q += len(in.b)
		}
		at += len(o.b)
	}
	return nil
}

func misaligned(off int, st, field string, v uint32) error {
	return &FormatError{Offset: off, Struct: st, Field: field, Value: int64(v), Msg: "not a multiple of 8", Err: ErrMisaligned}
}
