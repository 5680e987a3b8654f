package sqsq

// MessageAttribute is a message attribute (or a message system attribute) as
// SQS carries it: a data type of String, Number or Binary, optionally followed
// by a custom label ("Number.float", "Binary.gif"), and a value. String and
// Number attributes use StringValue; Binary attributes use BinaryValue.
type MessageAttribute struct {
	DataType    string
	StringValue string
	BinaryValue []byte
}
