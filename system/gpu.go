package system

// gpuObjects returns the GPU objects the host has when it is called.
func (c *Collector) gpuObjects() []Object { return nil }
