package sqsq

// syncTasks brings running move tasks up to the clock's now.
func (b *Broker) syncTasks() {}
