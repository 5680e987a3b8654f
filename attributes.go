package sqsq

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// QueueAttributes are the settable attributes of a queue. An unset field
// keeps its default on CreateQueue and its current value on SetAttributes.
// Durations must be whole seconds within the AWS range of each attribute.
type QueueAttributes struct {
	// DelaySeconds: how long new messages stay invisible, 0–900 s (default 0).
	DelaySeconds Optional[time.Duration]
	// MaximumMessageSize in bytes, 1,024–1,048,576 (default 1,048,576).
	MaximumMessageSize Optional[int]
	// MessageRetentionPeriod, 60 s–14 days (default 4 days).
	MessageRetentionPeriod Optional[time.Duration]
	// ReceiveMessageWaitTimeSeconds: the long-poll wait of receives that give
	// none, 0–20 s (default 0).
	ReceiveMessageWaitTimeSeconds Optional[time.Duration]
	// VisibilityTimeout: how long a received message stays hidden, 0–12 h
	// (default 30 s).
	VisibilityTimeout Optional[time.Duration]
	// Policy is the queue's IAM policy JSON, stored but not enforced; "" removes it.
	// AWS's policy quotas apply: a policy over 8,192 bytes, of more than 20
	// statements, 7 actions or 10 conditions in a statement, or 50
	// principals fails with OverLimit; text that is not a JSON policy
	// document with InvalidAttributeValue.
	Policy Optional[string]
	// KmsMasterKeyId enables SSE-KMS in name only (nothing is encrypted); "" removes it.
	KmsMasterKeyId Optional[string]
	// KmsDataKeyReusePeriodSeconds, 60 s–24 h (default 300 s).
	KmsDataKeyReusePeriodSeconds Optional[time.Duration]
	// SqsManagedSseEnabled (default true); exclusive with KmsMasterKeyId.
	SqsManagedSseEnabled Optional[bool]
	// FifoQueue makes a FIFO queue at creation. Standard queues reject it.
	FifoQueue Optional[bool]
	// ContentBasedDeduplication (FIFO only, default false): a send without a
	// MessageDeduplicationId is deduplicated by the SHA-256 of its body.
	ContentBasedDeduplication Optional[bool]
	// DeduplicationScope (FIFO only): "queue" (default) or "messageGroup".
	DeduplicationScope Optional[string]
	// FifoThroughputLimit (FIFO only): "perQueue" (default) or
	// "perMessageGroupId", which needs DeduplicationScope "messageGroup".
	// Stored, not enforced.
	FifoThroughputLimit Optional[string]
	// RedrivePolicy sends messages to a dead-letter queue after too many
	// deliveries; Some(nil) removes it. See [ParseRedrivePolicy] for the JSON form.
	RedrivePolicy Optional[*RedrivePolicy]
	// RedriveAllowPolicy says which queues may use this one as their
	// dead-letter queue; Some(nil) removes it (everyone may).
	RedriveAllowPolicy Optional[*RedriveAllowPolicy]

	redriveJSON string // RedrivePolicy as parsed from the wire, quoted in errors
}

// Queue attribute names, as SQS spells them.
const (
	AttrAll                                   = "All"
	AttrDelaySeconds                          = "DelaySeconds"
	AttrMaximumMessageSize                    = "MaximumMessageSize"
	AttrMessageRetentionPeriod                = "MessageRetentionPeriod"
	AttrReceiveMessageWaitTimeSeconds         = "ReceiveMessageWaitTimeSeconds"
	AttrVisibilityTimeout                     = "VisibilityTimeout"
	AttrPolicy                                = "Policy"
	AttrKmsMasterKeyID                        = "KmsMasterKeyId"
	AttrKmsDataKeyReusePeriodSeconds          = "KmsDataKeyReusePeriodSeconds"
	AttrSqsManagedSseEnabled                  = "SqsManagedSseEnabled"
	AttrFifoQueue                             = "FifoQueue"
	AttrContentBasedDeduplication             = "ContentBasedDeduplication"
	AttrDeduplicationScope                    = "DeduplicationScope"
	AttrFifoThroughputLimit                   = "FifoThroughputLimit"
	AttrRedrivePolicy                         = "RedrivePolicy"
	AttrRedriveAllowPolicy                    = "RedriveAllowPolicy"
	AttrApproximateNumberOfMessages           = "ApproximateNumberOfMessages"
	AttrApproximateNumberOfMessagesNotVisible = "ApproximateNumberOfMessagesNotVisible"
	AttrApproximateNumberOfMessagesDelayed    = "ApproximateNumberOfMessagesDelayed"
	AttrCreatedTimestamp                      = "CreatedTimestamp"
	AttrLastModifiedTimestamp                 = "LastModifiedTimestamp"
	AttrQueueArn                              = "QueueArn"
)

// attrRange describes a whole-second duration attribute.
type attrRange struct{ min, max int64 }

var durationRanges = map[string]attrRange{
	AttrDelaySeconds:                  {0, 900},
	AttrMessageRetentionPeriod:        {60, 1209600},
	AttrReceiveMessageWaitTimeSeconds: {0, 20},
	AttrVisibilityTimeout:             {0, 43200},
	AttrKmsDataKeyReusePeriodSeconds:  {60, 86400},
}

// ParseQueueAttributes turns the string map of the SQS wire protocols into
// QueueAttributes. Unknown or read-only names fail with InvalidAttributeName,
// malformed or out-of-range values with InvalidAttributeValue; names are
// checked in sorted order so the error is deterministic.
func ParseQueueAttributes(m map[string]string) (QueueAttributes, error) {
	var a QueueAttributes
	for _, name := range sortedKeys(m) {
		v := m[name]
		switch name {
		case AttrDelaySeconds, AttrMessageRetentionPeriod, AttrReceiveMessageWaitTimeSeconds,
			AttrVisibilityTimeout, AttrKmsDataKeyReusePeriodSeconds:
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return QueueAttributes{}, errInvalidAttrValue(name)
			}
			d := Some(time.Duration(n) * time.Second)
			if n < -1<<31 || n > 1<<31 {
				return QueueAttributes{}, errInvalidAttrValue(name)
			}
			switch name {
			case AttrDelaySeconds:
				a.DelaySeconds = d
			case AttrMessageRetentionPeriod:
				a.MessageRetentionPeriod = d
			case AttrReceiveMessageWaitTimeSeconds:
				a.ReceiveMessageWaitTimeSeconds = d
			case AttrVisibilityTimeout:
				a.VisibilityTimeout = d
			case AttrKmsDataKeyReusePeriodSeconds:
				a.KmsDataKeyReusePeriodSeconds = d
			}
		case AttrMaximumMessageSize:
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return QueueAttributes{}, errInvalidAttrValue(name)
			}
			a.MaximumMessageSize = Some(n)
		case AttrPolicy:
			a.Policy = Some(v)
		case AttrKmsMasterKeyID:
			a.KmsMasterKeyId = Some(v)
		case AttrSqsManagedSseEnabled, AttrFifoQueue, AttrContentBasedDeduplication:
			b, ok := parseBool(v)
			if !ok {
				return QueueAttributes{}, errInvalidAttrValue(name)
			}
			switch name {
			case AttrFifoQueue:
				a.FifoQueue = Some(b)
			case AttrContentBasedDeduplication:
				a.ContentBasedDeduplication = Some(b)
			default:
				a.SqsManagedSseEnabled = Some(b)
			}
		case AttrDeduplicationScope:
			a.DeduplicationScope = Some(v)
		case AttrRedrivePolicy:
			if v == "" {
				a.RedrivePolicy = Some[*RedrivePolicy](nil)
				break
			}
			p, err := ParseRedrivePolicy(v)
			if err != nil {
				return QueueAttributes{}, err
			}
			a.RedrivePolicy = Some(&p)
			a.redriveJSON = v
		case AttrRedriveAllowPolicy:
			if v == "" {
				a.RedriveAllowPolicy = Some[*RedriveAllowPolicy](nil)
				break
			}
			p, err := ParseRedriveAllowPolicy(v)
			if err != nil {
				return QueueAttributes{}, err
			}
			a.RedriveAllowPolicy = Some(&p)
		case AttrFifoThroughputLimit:
			a.FifoThroughputLimit = Some(v)
		default:
			return QueueAttributes{}, errUnknownAttr(name)
		}
	}
	if err := a.validate(); err != nil {
		return QueueAttributes{}, err
	}
	return a, nil
}

// parseBool accepts what AWS accepts: "true"/"false" in any case.
func parseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func errUnknownAttr(name string) *Error {
	return newError(CodeInvalidAttributeName, "Unknown Attribute %s.", name)
}

func errInvalidAttrValue(name string) *Error {
	return newError(CodeInvalidAttributeValue, "Invalid value for the parameter %s.", name)
}

// validate checks ranges; it is the single place for them.
func (a QueueAttributes) validate() *Error {
	check := func(name string, o Optional[time.Duration]) *Error {
		d, ok := o.Get()
		if !ok {
			return nil
		}
		r := durationRanges[name]
		if d%time.Second != 0 || d < time.Duration(r.min)*time.Second || d > time.Duration(r.max)*time.Second {
			return errInvalidAttrValue(name)
		}
		return nil
	}
	// Sorted by name, like the parse loop, so the first error is stable.
	if err := check(AttrDelaySeconds, a.DelaySeconds); err != nil {
		return err
	}
	if err := check(AttrKmsDataKeyReusePeriodSeconds, a.KmsDataKeyReusePeriodSeconds); err != nil {
		return err
	}
	if n, ok := a.MaximumMessageSize.Get(); ok && (n < 1024 || n > 1048576) {
		return errInvalidAttrValue(AttrMaximumMessageSize)
	}
	if err := check(AttrMessageRetentionPeriod, a.MessageRetentionPeriod); err != nil {
		return err
	}
	if err := check(AttrReceiveMessageWaitTimeSeconds, a.ReceiveMessageWaitTimeSeconds); err != nil {
		return err
	}
	if err := check(AttrVisibilityTimeout, a.VisibilityTimeout); err != nil {
		return err
	}
	if k, ok := a.KmsMasterKeyId.Get(); ok && k != "" && a.SqsManagedSseEnabled.Or(false) {
		return errSSEExclusive()
	}
	if p, ok := a.Policy.Get(); ok && p != "" {
		if err := validatePolicy(p); err != nil {
			return err
		}
	}
	if v, ok := a.DeduplicationScope.Get(); ok && v != dedupScopeQueue && v != dedupScopeGroup {
		return errInvalidAttrValue(AttrDeduplicationScope)
	}
	if v, ok := a.FifoThroughputLimit.Get(); ok && v != throughputPerQueue && v != throughputPerGroup {
		return errInvalidAttrValue(AttrFifoThroughputLimit)
	}
	if p, _ := a.RedrivePolicy.Get(); p != nil {
		if err := p.validate(a.redriveJSON); err != nil {
			return err
		}
	}
	if p, _ := a.RedriveAllowPolicy.Get(); p != nil {
		if err := p.validate(); err != nil {
			return err
		}
	}
	return nil
}

func errSSEExclusive() *Error {
	return newError(CodeInvalidAttributeName, "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE.")
}

// Values of DeduplicationScope and FifoThroughputLimit.
const (
	dedupScopeQueue    = "queue"
	dedupScopeGroup    = "messageGroup"
	throughputPerQueue = "perQueue"
	throughputPerGroup = "perMessageGroupId"
)

// checkType rejects FIFO-only attributes on a standard queue, and checks the
// FIFO combination rule against the values the queue will have. The messages
// are the ones AWS answers with.
func (a QueueAttributes) checkType(fifo bool, cur queueSettings) *Error {
	if a.SqsManagedSseEnabled.Or(false) && cur.kmsKey != "" && a.KmsMasterKeyId.Or(cur.kmsKey) != "" {
		return errSSEExclusive()
	}
	if !fifo {
		switch {
		case a.ContentBasedDeduplication.IsSet():
			return errUnknownAttr(AttrContentBasedDeduplication)
		case a.DeduplicationScope.IsSet():
			return newError(CodeInvalidAttributeName, "You can specify the DeduplicationScope only when FifoQueue is set to true.")
		case a.FifoThroughputLimit.IsSet():
			return newError(CodeInvalidAttributeName, "You can specify the FifoThroughputLimit only when FifoQueue is set to true.")
		}
		return nil
	}
	cur.apply(a)
	if cur.throughput == throughputPerGroup && cur.dedupScope != dedupScopeGroup {
		return newError(CodeInvalidAttributeValue,
			"Invalid value for the parameter FifoThroughputLimit. Reason: perMessageGroupId is only allowed with DeduplicationScope messageGroup.")
	}
	return nil
}

// queueSettings are a queue's current attribute values.
type queueSettings struct {
	delay, retention, wait, visibility, kmsReuse time.Duration
	maxSize                                      int
	policy, kmsKey                               string
	sseEnabled                                   bool
	contentDedup                                 bool   // FIFO
	dedupScope, throughput                       string // FIFO
	redrive                                      *RedrivePolicy
	allow                                        *RedriveAllowPolicy
}

func defaultSettings() queueSettings {
	return queueSettings{
		retention:  345600 * time.Second,
		visibility: 30 * time.Second,
		kmsReuse:   300 * time.Second,
		maxSize:    1048576,
		sseEnabled: true,
		dedupScope: dedupScopeQueue,
		throughput: throughputPerQueue,
	}
}

// apply sets every field that a holds. It assumes a was validated.
func (s *queueSettings) apply(a QueueAttributes) {
	if v, ok := a.DelaySeconds.Get(); ok {
		s.delay = v
	}
	if v, ok := a.MaximumMessageSize.Get(); ok {
		s.maxSize = v
	}
	if v, ok := a.MessageRetentionPeriod.Get(); ok {
		s.retention = v
	}
	if v, ok := a.ReceiveMessageWaitTimeSeconds.Get(); ok {
		s.wait = v
	}
	if v, ok := a.VisibilityTimeout.Get(); ok {
		s.visibility = v
	}
	if v, ok := a.Policy.Get(); ok {
		s.policy = v
	}
	if v, ok := a.KmsDataKeyReusePeriodSeconds.Get(); ok {
		s.kmsReuse = v
	}
	if v, ok := a.KmsMasterKeyId.Get(); ok {
		s.kmsKey = v
		if v != "" {
			s.sseEnabled = false
		}
	}
	if v, ok := a.SqsManagedSseEnabled.Get(); ok {
		s.sseEnabled = v
	}
	if v, ok := a.ContentBasedDeduplication.Get(); ok {
		s.contentDedup = v
	}
	if v, ok := a.DeduplicationScope.Get(); ok {
		s.dedupScope = v
	}
	if v, ok := a.FifoThroughputLimit.Get(); ok {
		s.throughput = v
	}
	if v, ok := a.RedrivePolicy.Get(); ok {
		s.redrive = clonePolicy(v)
	}
	if v, ok := a.RedriveAllowPolicy.Get(); ok {
		s.allow = cloneAllow(v)
	}
}

// The settings keep copies, so a caller changing its policy value later
// changes nothing.
func clonePolicy(p *RedrivePolicy) *RedrivePolicy {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

func cloneAllow(p *RedriveAllowPolicy) *RedriveAllowPolicy {
	if p == nil {
		return nil
	}
	c := *p
	c.SourceQueueArns = append([]string(nil), p.SourceQueueArns...)
	return &c
}

// strings returns the settable attributes in wire form, omitting the ones
// AWS omits while unset.
func (s *queueSettings) strings(fifo bool) map[string]string {
	return attributeStrings(s.attributes(fifo))
}

// attributes returns the settings as QueueAttributes with every attribute
// set that AWS reports: Policy, KMS and the redrive policies only when set,
// the FIFO ones only on FIFO queues.
func (s *queueSettings) attributes(fifo bool) QueueAttributes {
	a := QueueAttributes{
		DelaySeconds:                  Some(s.delay),
		MaximumMessageSize:            Some(s.maxSize),
		MessageRetentionPeriod:        Some(s.retention),
		ReceiveMessageWaitTimeSeconds: Some(s.wait),
		VisibilityTimeout:             Some(s.visibility),
		SqsManagedSseEnabled:          Some(s.sseEnabled),
	}
	if s.policy != "" {
		a.Policy = Some(s.policy)
	}
	if s.kmsKey != "" {
		a.KmsMasterKeyId = Some(s.kmsKey)
		a.KmsDataKeyReusePeriodSeconds = Some(s.kmsReuse)
	}
	if s.redrive != nil {
		a.RedrivePolicy = Some(s.redrive)
	}
	if s.allow != nil {
		a.RedriveAllowPolicy = Some(s.allow)
	}
	if fifo {
		a.FifoQueue = Some(true)
		a.ContentBasedDeduplication = Some(s.contentDedup)
		a.DeduplicationScope = Some(s.dedupScope)
		a.FifoThroughputLimit = Some(s.throughput)
	}
	return a
}

// differs returns the first attribute (by name) that a sets to a value other
// than the current one, for CreateQueue's idempotency rule.
func (s *queueSettings) differs(a QueueAttributes, fifo bool) string {
	cur := s.strings(fifo)
	want := attributeStrings(a)
	for _, name := range sortedKeys(want) {
		if cur[name] != want[name] {
			return name
		}
	}
	return ""
}

// attributeStrings is a's set fields in wire form.
func attributeStrings(a QueueAttributes) map[string]string {
	return putAttributeStrings(make(map[string]string, wireAttributes), a)
}

// wireAttributes is the most attributes GetQueueAttributes answers (a
// FIFO queue with every optional one set), to size its map once.
const wireAttributes = 22

// settableNames are the settable attributes' wire names.
var settableNames = [...]string{
	AttrDelaySeconds, AttrMaximumMessageSize, AttrMessageRetentionPeriod,
	AttrReceiveMessageWaitTimeSeconds, AttrVisibilityTimeout, AttrPolicy,
	AttrKmsMasterKeyID, AttrKmsDataKeyReusePeriodSeconds, AttrSqsManagedSseEnabled,
	AttrFifoQueue, AttrContentBasedDeduplication, AttrDeduplicationScope,
	AttrFifoThroughputLimit, AttrRedrivePolicy, AttrRedriveAllowPolicy,
}

// putAttributeStrings puts a's set fields in wire form into m.
func putAttributeStrings(m map[string]string, a QueueAttributes) map[string]string {
	for _, name := range settableNames {
		if v, ok := a.wire(name); ok {
			m[name] = v
		}
	}
	return m
}

// wire returns the named settable attribute in wire form, if set.
func (a *QueueAttributes) wire(name string) (string, bool) {
	dur := func(o Optional[time.Duration]) (string, bool) {
		v, ok := o.Get()
		return secs(v), ok
	}
	flag := func(o Optional[bool]) (string, bool) {
		v, ok := o.Get()
		return strconv.FormatBool(v), ok
	}
	switch name {
	case AttrDelaySeconds:
		return dur(a.DelaySeconds)
	case AttrMessageRetentionPeriod:
		return dur(a.MessageRetentionPeriod)
	case AttrReceiveMessageWaitTimeSeconds:
		return dur(a.ReceiveMessageWaitTimeSeconds)
	case AttrVisibilityTimeout:
		return dur(a.VisibilityTimeout)
	case AttrKmsDataKeyReusePeriodSeconds:
		return dur(a.KmsDataKeyReusePeriodSeconds)
	case AttrMaximumMessageSize:
		v, ok := a.MaximumMessageSize.Get()
		return strconv.Itoa(v), ok
	case AttrPolicy:
		return a.Policy.Get()
	case AttrKmsMasterKeyID:
		return a.KmsMasterKeyId.Get()
	case AttrSqsManagedSseEnabled:
		return flag(a.SqsManagedSseEnabled)
	case AttrFifoQueue:
		return flag(a.FifoQueue)
	case AttrContentBasedDeduplication:
		return flag(a.ContentBasedDeduplication)
	case AttrDeduplicationScope:
		return a.DeduplicationScope.Get()
	case AttrFifoThroughputLimit:
		return a.FifoThroughputLimit.Get()
	case AttrRedrivePolicy:
		return policyWire(a.RedrivePolicy)
	case AttrRedriveAllowPolicy:
		return policyWire(a.RedriveAllowPolicy)
	}
	return "", false
}

// policyWire is a redrive policy in wire form: "" when set to nil (cleared).
func policyWire[T any, P interface {
	*T
	String() string
}](o Optional[P]) (string, bool) {
	v, ok := o.Get()
	if v == nil {
		return "", ok
	}
	return v.String(), ok
}

func secs(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// GetAttributes returns the named attributes in wire form
// (GetQueueAttributes): "All" for every one, or names. Settable attributes
// that are unset (Policy, KMS) are omitted; an unknown name fails with
// InvalidAttributeName. No names give an empty map.
func (q *Queue) GetAttributes(ctx context.Context, names ...string) (map[string]string, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	all := false
	for _, n := range names {
		switch {
		case n == AttrAll:
			all = true
		case knownAttribute(n, q.fifo):
		default:
			return nil, errUnknownAttr(n)
		}
	}
	if _, err := q.lock(); err != nil {
		return nil, err
	}
	defer q.mu.Unlock()
	if all {
		// Sized once: the console asks for every queue's each second.
		every := putAttributeStrings(make(map[string]string, wireAttributes), q.settings.attributes(q.fifo))
		for _, name := range readOnlyNames {
			every[name], _ = q.readOnly(name)
		}
		return every, nil
	}
	// Only what is asked for, formatted: a poller asks for one count.
	set := q.settings.attributes(q.fifo)
	out := make(map[string]string, len(names))
	for _, n := range names {
		if v, ok := q.readOnly(n); ok {
			out[n] = v
		} else if v, ok := set.wire(n); ok {
			out[n] = v
		}
	}
	return out, nil
}

// readOnlyNames are the attributes only SQS sets.
var readOnlyNames = [...]string{
	AttrApproximateNumberOfMessages, AttrApproximateNumberOfMessagesNotVisible,
	AttrApproximateNumberOfMessagesDelayed, AttrCreatedTimestamp,
	AttrLastModifiedTimestamp, AttrQueueArn,
}

// readOnly returns the named read-only attribute. Caller holds q.mu.
func (q *Queue) readOnly(name string) (string, bool) {
	switch name {
	case AttrApproximateNumberOfMessages:
		return strconv.Itoa(q.nAvail), true
	case AttrApproximateNumberOfMessagesNotVisible:
		return strconv.Itoa(q.nInflight), true
	case AttrApproximateNumberOfMessagesDelayed:
		return strconv.Itoa(q.nDelayed), true
	case AttrCreatedTimestamp:
		return strconv.FormatInt(q.created.Unix(), 10), true
	case AttrLastModifiedTimestamp:
		return strconv.FormatInt(q.modified.Unix(), 10), true
	case AttrQueueArn:
		return q.arn, true
	}
	return "", false
}

// knownAttribute reports whether name is a queue attribute of this queue type.
func knownAttribute(name string, fifo bool) bool {
	switch name {
	case AttrDelaySeconds, AttrMaximumMessageSize, AttrMessageRetentionPeriod,
		AttrReceiveMessageWaitTimeSeconds, AttrVisibilityTimeout, AttrPolicy,
		AttrKmsMasterKeyID, AttrKmsDataKeyReusePeriodSeconds, AttrSqsManagedSseEnabled,
		AttrRedrivePolicy, AttrRedriveAllowPolicy:
		return true
	case AttrFifoQueue, AttrContentBasedDeduplication, AttrDeduplicationScope, AttrFifoThroughputLimit:
		return fifo
	}
	return slices.Contains(readOnlyNames[:], name)
}

// SetAttributes changes queue attributes (SetQueueAttributes). All are
// validated before any is applied; LastModifiedTimestamp becomes now. A
// shorter MessageRetentionPeriod expires older messages at once.
func (q *Queue) SetAttributes(ctx context.Context, attrs QueueAttributes) error {
	if err := q.check(); err != nil {
		return err
	}
	if err := attrs.validate(); err != nil {
		return err
	}
	if v, ok := attrs.FifoQueue.Get(); ok {
		if !q.fifo {
			return errUnknownAttr(AttrFifoQueue)
		}
		if !v {
			return newError(CodeInvalidAttributeValue, "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.")
		}
	}
	if p, _ := attrs.RedrivePolicy.Get(); p != nil {
		q.b.mu.Lock()
		target := q.b.queueByARNLocked(p.DeadLetterTargetArn)
		q.b.mu.Unlock()
		if err := q.b.checkRedriveTarget(*p, attrs.redriveJSON, q.arn, q.fifo, target); err != nil {
			return err
		}
	}
	now, err := q.lock()
	if err != nil {
		return err
	}
	defer q.mu.Unlock()
	if err := attrs.checkType(q.fifo, q.settings); err != nil {
		return err
	}
	oldDelay := q.settings.delay
	q.settings.apply(attrs)
	q.syncRedriveTarget()
	q.modified = time.Unix(0, now)
	if q.fifo && q.settings.delay != oldDelay {
		q.redelay(now)
		q.wakeAll() // parked receivers re-arm for the new deadlines
	}
	q.advance(now) // retention may have shortened
	return nil
}
