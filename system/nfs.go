package system

// nfsObjects returns the NFS objects the host has when it is called.
func (c *Collector) nfsObjects() []Object { return nil }
