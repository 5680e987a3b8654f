package chaos

import (
	"slices"
	"strings"

	"github.com/sqsq/sqsq"
)

// operations are the 23 operations of SQS (API version 2012-11-05) as the
// wire names them, sorted: the names a rule's operation may give and
// [sqshttp.Call.Operation] reports.
var operations = []string{
	"AddPermission",
	"CancelMessageMoveTask",
	"ChangeMessageVisibility",
	"ChangeMessageVisibilityBatch",
	"CreateQueue",
	"DeleteMessage",
	"DeleteMessageBatch",
	"DeleteQueue",
	"GetQueueAttributes",
	"GetQueueUrl",
	"ListDeadLetterSourceQueues",
	"ListMessageMoveTasks",
	"ListQueueTags",
	"ListQueues",
	"PurgeQueue",
	"ReceiveMessage",
	"RemovePermission",
	"SendMessage",
	"SendMessageBatch",
	"SetQueueAttributes",
	"StartMessageMoveTask",
	"TagQueue",
	"UntagQueue",
}

// isOperation reports whether name is an SQS operation, spelled as on the
// wire.
func isOperation(name string) bool {
	_, ok := slices.BinarySearch(operations, name)
	return ok
}

// spellingOf returns the operation name spells in another case
// ("sendmessage" → "SendMessage"), or "".
func spellingOf(name string) string {
	for _, op := range operations {
		if strings.EqualFold(op, name) {
			return op
		}
	}
	return ""
}

// coreOps maps the wire operations a core fault can name to the core's
// decision point. The core's Op for a delete covers DeleteMessage and each
// entry of DeleteMessageBatch alike (and the same for visibility changes),
// so a rule naming either matches both.
var coreOps = map[string]sqsq.Op{
	"ReceiveMessage":               sqsq.OpReceive,
	"DeleteMessage":                sqsq.OpDelete,
	"DeleteMessageBatch":           sqsq.OpDelete,
	"ChangeMessageVisibility":      sqsq.OpChangeVisibility,
	"ChangeMessageVisibilityBatch": sqsq.OpChangeVisibility,
}

// opName is the wire name of a core operation, as injections report it.
func opName(op sqsq.Op) string {
	switch op {
	case sqsq.OpReceive:
		return "ReceiveMessage"
	case sqsq.OpDelete:
		return "DeleteMessage"
	case sqsq.OpChangeVisibility:
		return "ChangeMessageVisibility"
	}
	return op.String()
}
