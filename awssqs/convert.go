package awssqs

import (
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsq/sqsq"
)

// messageAttributesIn converts the SDK's message attributes. The list
// values are reserved by AWS and not implemented, so they are refused.
func messageAttributesIn(in map[string]types.MessageAttributeValue) (map[string]sqsq.MessageAttribute, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]sqsq.MessageAttribute, len(in))
	for name, v := range in {
		if len(v.StringListValues) > 0 || len(v.BinaryListValues) > 0 {
			return nil, listValuesError("Message (user) attribute", name)
		}
		out[name] = sqsq.MessageAttribute{DataType: str(v.DataType), StringValue: str(v.StringValue), BinaryValue: v.BinaryValue}
	}
	return out, nil
}

// systemAttributesIn converts the SDK's message system attributes.
func systemAttributesIn(in map[string]types.MessageSystemAttributeValue) (map[string]sqsq.MessageAttribute, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]sqsq.MessageAttribute, len(in))
	for name, v := range in {
		if len(v.StringListValues) > 0 || len(v.BinaryListValues) > 0 {
			return nil, listValuesError("Message system attribute", name)
		}
		out[name] = sqsq.MessageAttribute{DataType: str(v.DataType), StringValue: str(v.StringValue), BinaryValue: v.BinaryValue}
	}
	return out, nil
}

func listValuesError(kind, name string) *sqsq.Error {
	return &sqsq.Error{
		Code:    sqsq.CodeInvalidParameterValue,
		Message: kind + " '" + name + "' is invalid. Reason: StringListValues and BinaryListValues are not supported.",
	}
}

// messageAttributesOut converts received message attributes; nil when
// there are none, as AWS omits the member.
func messageAttributesOut(in map[string]sqsq.MessageAttribute) map[string]types.MessageAttributeValue {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]types.MessageAttributeValue, len(in))
	strs := make([]string, 0, 2*len(in)) // backing for the *string members
	for name, a := range in {
		strs = append(strs, a.DataType)
		v := types.MessageAttributeValue{DataType: &strs[len(strs)-1]}
		if a.BinaryValue != nil {
			v.BinaryValue = a.BinaryValue
		} else {
			strs = append(strs, a.StringValue)
			v.StringValue = &strs[len(strs)-1]
		}
		out[name] = v
	}
	return out
}

// groupAndDedupIDs checks the FIFO id members. sqsq reads "" as "not
// given", while a request that carries the member empty is one AWS refuses
// as a malformed id, so that case is refused here.
func groupAndDedupIDs(group, dedup *string) (string, string, error) {
	for _, m := range [...]struct {
		name string
		v    *string
	}{{"MessageGroupId", group}, {"MessageDeduplicationId", dedup}} {
		if m.v != nil && *m.v == "" {
			return "", "", sqsq.InvalidParameter(m.name, "", m.name+" can only include alphanumeric and punctuation characters. 1 to 128 in length.")
		}
	}
	return str(group), str(dedup), nil
}

// systemAttributeNames merges the deprecated AttributeNames into
// MessageSystemAttributeNames: AWS returns the union of both.
func systemAttributeNames(deprecated []types.QueueAttributeName, names []types.MessageSystemAttributeName) []string {
	if len(deprecated)+len(names) == 0 {
		return nil
	}
	out := make([]string, 0, len(deprecated)+len(names))
	for _, n := range deprecated {
		out = append(out, string(n))
	}
	for _, n := range names {
		out = append(out, string(n))
	}
	return out
}

// messagesOut converts received messages; nil when there are none, as AWS
// omits the member. The *string members point into msgs and one backing
// array, so a receive of n messages costs two allocations here.
func messagesOut(msgs []sqsq.Message) []types.Message {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]types.Message, len(msgs))
	md5s := make([]string, 2*len(msgs))
	for i := range msgs {
		m, o := &msgs[i], &out[i]
		md5s[2*i] = m.MD5OfBody()
		o.MessageId, o.ReceiptHandle, o.Body, o.MD5OfBody = &m.MessageId, &m.ReceiptHandle, &m.Body, &md5s[2*i]
		o.Attributes = m.Attributes
		if len(m.MessageAttributes) > 0 {
			o.MessageAttributes = messageAttributesOut(m.MessageAttributes)
			md5s[2*i+1] = m.MD5OfMessageAttributes()
			o.MD5OfMessageAttributes = &md5s[2*i+1]
		}
	}
	return out
}

// batchErrorsOut converts the failed entries of a batch call: the legacy
// error code, as the wire carries it, and SenderFault.
func batchErrorsOut(failed []sqsq.BatchResultError) []types.BatchResultErrorEntry {
	if len(failed) == 0 {
		return nil
	}
	out := make([]types.BatchResultErrorEntry, len(failed))
	strs := make([]string, 2*len(failed))
	for i := range failed {
		f := &failed[i]
		strs[2*i], strs[2*i+1] = f.Err.Code.Info().QueryCode, f.Err.Message
		out[i] = types.BatchResultErrorEntry{Id: &f.Id, Code: &strs[2*i], SenderFault: !f.Err.Receiver}
		if f.Err.Message != "" {
			out[i].Message = &strs[2*i+1]
		}
	}
	return out
}
