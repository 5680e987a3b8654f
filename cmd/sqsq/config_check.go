package main

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/awsname"
)

// plan is what createQueues does for one queue of the file, once checked.
type plan struct {
	key   queueKey
	attrs sqsq.QueueAttributes // for CreateQueue: every attribute but RedrivePolicy
	// The redrive policy, set once every queue exists: either dlq, a queue
	// of the file, and maxReceives, or redrive, ready to set.
	dlq         string
	maxReceives int
	redrive     *sqsq.QueueAttributes
	redriveAt   string // where the file gives the dead-letter queue, for errors
}

// queueKey names a queue of the file: its namespace and name.
type queueKey struct{ account, region, name string }

// key is the queueKey of q, whose empty account or region is the default.
func (q queueConfig) key(account, region string) queueKey {
	return queueKey{cmp.Or(q.Account, account), cmp.Or(q.Region, region), q.Name}
}

// check checks, in file order, what the file alone can tell, and returns
// the plan of each queue; account and region are the defaults. Nothing is
// created yet, so a file that fails here creates no queue.
func (c *config) check(account, region string) ([]plan, error) {
	names := make(map[queueKey]int, len(c.Queues)) // the index of each name's first queue
	for i, q := range c.Queues {
		if _, dup := names[q.key(account, region)]; !dup {
			names[q.key(account, region)] = i
		}
	}
	plans := make([]plan, len(c.Queues))
	for i, q := range c.Queues {
		at := fmt.Sprintf("queues[%d]", i)
		if q.Name == "" {
			return nil, c.errorf(at+".name", false, nil, "missing or empty: each queue needs a name")
		}
		if q.Account != "" && !awsname.IsAccountID(q.Account) {
			return nil, c.errorf(at+".account", false, nil, "%q is not an account id: it must be 12 digits, as clients name it by their access key id", q.Account)
		}
		if q.Region != "" && !awsname.IsRegion(q.Region) {
			return nil, c.errorf(at+".region", false, nil, "%q is not an AWS region's name, such as eu-west-1: clients reach only those", q.Region)
		}
		k := q.key(account, region)
		if first := names[k]; first != i {
			return nil, c.errorf(at+".name", false, nil, "queues[%d] has the same name as queues[%d]%s: each queue of a namespace needs its own name",
				i, first, c.src.lineOf(fmt.Sprintf("queues[%d]", first)))
		}
		p := plan{key: k}
		raw, err := c.checkAttributes(i, q.Attributes, &p.attrs)
		if err != nil {
			return nil, err
		}
		switch r := q.RedrivePolicy; {
		case r != nil && raw != nil:
			return nil, c.errorf(at+".redrivePolicy", true, nil, "both this key and attributes.RedrivePolicy give a dead-letter queue: keep one")
		case raw != nil:
			p.redrive, p.redriveAt = raw, at+".attributes.RedrivePolicy"
		case r != nil:
			if err := c.checkRedrive(at+".redrivePolicy", r, names, &p); err != nil {
				return nil, err
			}
		}
		plans[i] = p
	}
	return plans, nil
}

// checkAttributes parses the attributes of queues[i] into attrs, one by
// one so that an error names its attribute, then together for the rules
// that tie attributes. The RedrivePolicy attribute is returned apart, to
// be set after every queue exists.
func (c *config) checkAttributes(i int, m map[string]string, attrs *sqsq.QueueAttributes) (redrive *sqsq.QueueAttributes, err error) {
	at := fmt.Sprintf("queues[%d].attributes", i)
	rest := make(map[string]string, len(m))
	for _, k := range c.src.inFileOrder(at, m) {
		a, err := sqsq.ParseQueueAttributes(map[string]string{k: m[k]})
		if err != nil {
			return nil, c.attributeError(at+"."+k, k, m[k], err)
		}
		if k == sqsq.AttrRedrivePolicy {
			redrive = &a
			continue
		}
		rest[k] = m[k]
	}
	if *attrs, err = sqsq.ParseQueueAttributes(rest); err != nil {
		return nil, c.errorf(at, true, err, "")
	}
	return redrive, nil
}

// attributeError words SQS's error about the attribute k, of value v.
func (c *config) attributeError(path, k, v string, err error) error {
	var e *sqsq.Error
	errors.As(err, &e)
	switch {
	case e != nil && e.Code == sqsq.CodeInvalidAttributeName:
		for name := range attributeHints {
			if strings.EqualFold(name, k) && name != k {
				return c.errorf(path, true, err, "not an attribute CreateQueue takes (names are case-sensitive: did you mean %s?)", name)
			}
		}
		return c.errorf(path, true, err, "not an attribute CreateQueue takes")
	case e != nil && e.Code == sqsq.CodeInvalidAttributeValue && attributeHints[k] != "":
		return c.errorf(path, false, err, "%q is not a valid value: it must be %s", v, attributeHints[k])
	case e != nil && e.Code == sqsq.CodeInvalidAttributeValue:
		return c.errorf(path, false, err, "%q is not a valid value", v)
	}
	return c.errorf(path, false, err, "") // RedrivePolicy and RedriveAllowPolicy: SQS gives the reason
}

// attributeHints are the attributes CreateQueue takes, with the values
// each takes where the core's error does not say (it names the attribute
// only, as SQS does). The ranges are those of the CreateQueue API
// reference (sqs-semantics.md §2.1); TestAttributeHints checks them
// against the core.
var attributeHints = map[string]string{
	sqsq.AttrDelaySeconds:                  "an integer from 0 to 900, in seconds",
	sqsq.AttrMaximumMessageSize:            "an integer from 1024 to 1048576, in bytes",
	sqsq.AttrMessageRetentionPeriod:        "an integer from 60 to 1209600, in seconds",
	sqsq.AttrReceiveMessageWaitTimeSeconds: "an integer from 0 to 20, in seconds",
	sqsq.AttrVisibilityTimeout:             "an integer from 0 to 43200, in seconds",
	sqsq.AttrKmsDataKeyReusePeriodSeconds:  "an integer from 60 to 86400, in seconds",
	sqsq.AttrSqsManagedSseEnabled:          `"true" or "false"`,
	sqsq.AttrFifoQueue:                     `"true" or "false"`,
	sqsq.AttrContentBasedDeduplication:     `"true" or "false"`,
	sqsq.AttrDeduplicationScope:            `"queue" or "messageGroup"`,
	sqsq.AttrFifoThroughputLimit:           `"perQueue" or "perMessageGroupId"`,
	sqsq.AttrPolicy:                        "a JSON policy document",
	sqsq.AttrKmsMasterKeyID:                "",
	sqsq.AttrRedrivePolicy:                 "",
	sqsq.AttrRedriveAllowPolicy:            "",
}

// checkRedrive checks the redrivePolicy key r, at path, into p.
func (c *config) checkRedrive(path string, r *redriveConfig, names map[queueKey]int, p *plan) error {
	switch {
	case r.DeadLetterQueue == "" && r.DeadLetterTargetArn == "":
		return c.errorf(path, true, nil, "no dead-letter queue: give deadLetterQueue (the name of a queue of this file) or deadLetterTargetArn")
	case r.DeadLetterQueue != "" && r.DeadLetterTargetArn != "":
		return c.errorf(path, true, nil, "give deadLetterQueue or deadLetterTargetArn, not both")
	case r.MaxReceiveCount == nil:
		return c.errorf(path, true, nil, "maxReceiveCount is missing: it must be an integer from 1 to 1000")
	case *r.MaxReceiveCount < 1 || *r.MaxReceiveCount > 1000:
		return c.errorf(path+".maxReceiveCount", false, nil, "%d is not a valid value: it must be an integer from 1 to 1000", *r.MaxReceiveCount)
	case r.DeadLetterQueue != "":
		if _, ok := names[queueKey{p.key.account, p.key.region, r.DeadLetterQueue}]; !ok {
			return c.errorf(path+".deadLetterQueue", false, nil, "%q is not a queue of this file in the same account and region "+
				"(a dead-letter queue of another namespace is given by deadLetterTargetArn)", r.DeadLetterQueue)
		}
		p.dlq, p.maxReceives, p.redriveAt = r.DeadLetterQueue, *r.MaxReceiveCount, path+".deadLetterQueue"
		return nil
	}
	policy := sqsq.RedrivePolicy{DeadLetterTargetArn: r.DeadLetterTargetArn, MaxReceiveCount: *r.MaxReceiveCount}
	a, err := sqsq.ParseQueueAttributes(map[string]string{sqsq.AttrRedrivePolicy: policy.String()})
	if err != nil {
		return c.errorf(path+".deadLetterTargetArn", false, err, "")
	}
	p.redrive, p.redriveAt = &a, path+".deadLetterTargetArn"
	return nil
}
