package logview

// SetUploaded makes h call f with each upload's file once it is written,
// before it is opened and removed.
func SetUploaded(h *Handler, f func(file string)) { h.uploaded = f }
