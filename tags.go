package sqsq

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTags bounds a queue's tags. AWS's quotas page says only "we don't
// recommend adding more than 50 tags to a queue"; the SQS emulators that
// model the API closely (moto, and YDB's SQS-compatible service, which
// counts the merged set) refuse more than 50 with InvalidParameterValue,
// and an unbounded map let one client grow the server without end.
const maxTags = 50

func errTooManyTags(queue string) *Error {
	return newError(CodeInvalidParameterValue, "Too many tags added for queue %s.", queue)
}

// validateTags applies the tag rules of semantics §3.16.
func validateTags(tags map[string]string) *Error {
	for _, k := range sortedKeys(tags) {
		v := tags[k]
		n := utf8.RuneCountInString(k)
		if n < 1 || n > 128 || !validTagText(k) || strings.HasPrefix(strings.ToLower(k), "aws:") {
			return invalidValue("TagKey", k, "Tag keys must be 1 to 128 Unicode letters, digits, white space or _ . : / = + - @, and must not start with aws:.")
		}
		if utf8.RuneCountInString(v) > 256 || !validTagText(v) {
			return invalidValue("TagValue", v, "Tag values must be at most 256 Unicode letters, digits, white space or _ . : / = + - @.")
		}
	}
	return nil
}

func validTagText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || strings.ContainsRune("_.:/=+-@", r) {
			continue
		}
		return false
	}
	return true
}

// Tag adds tags to the queue, replacing the values of keys it has (TagQueue).
// Invalid keys or values, or more than 50 tags on the queue once they are
// added, fail with InvalidParameterValue and change nothing.
func (q *Queue) Tag(ctx context.Context, tags map[string]string) error {
	if err := q.check(); err != nil {
		return err
	}
	if err := validateTags(tags); err != nil {
		return err
	}
	if _, err := q.lock(); err != nil {
		return err
	}
	defer q.mu.Unlock()
	n := len(q.tags)
	for k := range tags {
		if _, ok := q.tags[k]; !ok {
			n++
		}
	}
	if n > maxTags {
		return errTooManyTags(q.name)
	}
	for k, v := range tags {
		q.tags[k] = v
	}
	return nil
}

// Untag removes tags by key; unknown keys are ignored (UntagQueue). No key,
// or a key that is empty or longer than 128 characters, fails with
// InvalidParameterValue "Tag keys must be between 1 and 128 characters in
// length." and removes nothing: AWS's answer to botocore's
// untag_queue(TagKeys=[]), which the Query protocol sends as an empty
// TagKeys parameter (quoted in getmoto/moto#1686, 2018). The core cannot
// tell an absent list from an empty one; the front doors answer a request
// without TagKeys with MissingParameter, as the SDK's model marks it
// required.
func (q *Queue) Untag(ctx context.Context, keys ...string) error {
	if err := q.check(); err != nil {
		return err
	}
	if err := validateUntagKeys(keys); err != nil {
		return err
	}
	if _, err := q.lock(); err != nil {
		return err
	}
	defer q.mu.Unlock()
	for _, k := range keys {
		delete(q.tags, k)
	}
	return nil
}

func validateUntagKeys(keys []string) *Error {
	if len(keys) == 0 {
		return errUntagKeyLength()
	}
	for _, k := range keys {
		if n := utf8.RuneCountInString(k); n < 1 || n > 128 {
			return errUntagKeyLength()
		}
	}
	return nil
}

func errUntagKeyLength() *Error {
	return newError(CodeInvalidParameterValue, "Tag keys must be between 1 and 128 characters in length.")
}

// Tags returns a copy of the queue's tags, nil when it has none (ListQueueTags).
func (q *Queue) Tags(ctx context.Context) (map[string]string, error) {
	if _, err := q.lock(); err != nil {
		return nil, err
	}
	defer q.mu.Unlock()
	if len(q.tags) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(q.tags))
	for k, v := range q.tags {
		out[k] = v
	}
	return out, nil
}
