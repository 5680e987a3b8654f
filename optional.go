package sqsq

// Optional holds a value that may be unset. SQS gives zero a meaning in
// several places (VisibilityTimeout 0 makes a message visible at once,
// DelaySeconds 0 overrides a queue delay), so sqsq never uses the zero value
// to mean "not given": an unset Optional means "use the default".
//
//	sqsq.ReceiveInput{VisibilityTimeout: sqsq.Some(0 * time.Second)}
type Optional[T any] struct {
	value T
	set   bool
}

// Some returns an Optional holding v.
func Some[T any](v T) Optional[T] { return Optional[T]{value: v, set: true} }

// Get returns the value and whether it is set.
func (o Optional[T]) Get() (T, bool) { return o.value, o.set }

// IsSet reports whether the Optional holds a value.
func (o Optional[T]) IsSet() bool { return o.set }

// Or returns the value if set, else def.
func (o Optional[T]) Or(def T) T {
	if o.set {
		return o.value
	}
	return def
}
