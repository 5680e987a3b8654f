package awssqs

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq"
)

// CreateQueue creates a queue, or returns the URL of the existing queue of
// that name when every attribute given matches (SQS's idempotency rule).
// Attributes are the wire strings ("VisibilityTimeout": "30", RedrivePolicy
// JSON), parsed by [sqsq.ParseQueueAttributes].
func (c *Client) CreateQueue(ctx context.Context, params *sqs.CreateQueueInput, optFns ...func(*sqs.Options)) (*sqs.CreateQueueOutput, error) {
	return call(ctx, c, "CreateQueue", params, (*Client).createQueue)
}

func (c *Client) createQueue(ctx context.Context, in *sqs.CreateQueueInput) (*sqs.CreateQueueOutput, error) {
	if in.QueueName == nil {
		return nil, sqsq.MissingParameter("QueueName")
	}
	attrs, err := sqsq.ParseQueueAttributes(in.Attributes)
	if err != nil {
		return nil, err
	}
	q, err := c.b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: *in.QueueName, Attributes: attrs, Tags: in.Tags})
	if err != nil {
		return nil, err
	}
	url := c.url(q)
	return &sqs.CreateQueueOutput{QueueUrl: &url}, nil
}

// DeleteQueue deletes a queue and its messages; the name cannot be reused
// for 60 s of clock time.
func (c *Client) DeleteQueue(ctx context.Context, params *sqs.DeleteQueueInput, optFns ...func(*sqs.Options)) (*sqs.DeleteQueueOutput, error) {
	return call(ctx, c, "DeleteQueue", params, (*Client).deleteQueue)
}

func (c *Client) deleteQueue(ctx context.Context, in *sqs.DeleteQueueInput) (*sqs.DeleteQueueOutput, error) {
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := q.DeleteQueue(ctx); err != nil {
		return nil, err
	}
	return &sqs.DeleteQueueOutput{}, nil
}

// GetQueueUrl returns the URL of the queue named QueueName. A
// QueueOwnerAWSAccountId other than the broker's account names that
// account's queue in the broker's region (see sqsq.Broker.Scope); access
// policies are not enforced.
func (c *Client) GetQueueUrl(ctx context.Context, params *sqs.GetQueueUrlInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error) {
	return call(ctx, c, "GetQueueUrl", params, (*Client).getQueueURL)
}

func (c *Client) getQueueURL(ctx context.Context, in *sqs.GetQueueUrlInput) (*sqs.GetQueueUrlOutput, error) {
	if in.QueueName == nil {
		return nil, sqsq.MissingParameter("QueueName")
	}
	name := *in.QueueName
	owner := str(in.QueueOwnerAWSAccountId)
	if name == "" || strings.ContainsAny(name, "/:") || strings.ContainsAny(owner, "/:?#%") { // a name, not a URL or an ARN
		return nil, &sqsq.Error{Code: sqsq.CodeQueueDoesNotExist, Message: "The specified queue does not exist."}
	}
	ref := name
	if owner != "" && owner != c.b.AccountID() {
		ref = "/queue/" + c.b.Region() + "/" + owner + "/" + name // another account's queue, in this region
	}
	q, err := c.b.GetQueue(ctx, ref)
	if err != nil {
		return nil, err
	}
	url := c.url(q)
	return &sqs.GetQueueUrlOutput{QueueUrl: &url}, nil
}

// ListQueues lists queue URLs in name order, by QueueNamePrefix, paged
// with MaxResults and NextToken. QueueUrls is nil when there are none, as
// AWS omits it. sqs.NewListQueuesPaginator works over a Client.
func (c *Client) ListQueues(ctx context.Context, params *sqs.ListQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error) {
	return call(ctx, c, "ListQueues", params, (*Client).listQueues)
}

func (c *Client) listQueues(ctx context.Context, in *sqs.ListQueuesInput) (*sqs.ListQueuesOutput, error) {
	res, err := c.b.ListQueues(ctx, sqsq.ListQueuesInput{
		QueueNamePrefix: str(in.QueueNamePrefix),
		MaxResults:      maxResults(in.MaxResults),
		NextToken:       str(in.NextToken),
	})
	if err != nil {
		return nil, err
	}
	return &sqs.ListQueuesOutput{QueueUrls: c.urls(ctx, res.QueueURLs), NextToken: optional(res.NextToken)}, nil
}

// maxResults converts an optional page size.
func maxResults(p *int32) sqsq.Optional[int] {
	if p == nil {
		return sqsq.Optional[int]{}
	}
	return sqsq.Some(int(*p))
}

// GetQueueAttributes returns the named attributes ("All" for every one) as
// wire strings. Attributes is nil when no names are given, as AWS omits it.
func (c *Client) GetQueueAttributes(ctx context.Context, params *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	return call(ctx, c, "GetQueueAttributes", params, (*Client).getQueueAttributes)
}

func (c *Client) getQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput) (*sqs.GetQueueAttributesOutput, error) {
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(in.AttributeNames))
	for i, n := range in.AttributeNames {
		names[i] = string(n)
	}
	attrs, err := q.GetAttributes(ctx, names...)
	if err != nil {
		return nil, err
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	return &sqs.GetQueueAttributesOutput{Attributes: attrs}, nil
}

// SetQueueAttributes changes queue attributes given as wire strings; all
// are checked before any is applied.
func (c *Client) SetQueueAttributes(ctx context.Context, params *sqs.SetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.SetQueueAttributesOutput, error) {
	return call(ctx, c, "SetQueueAttributes", params, (*Client).setQueueAttributes)
}

func (c *Client) setQueueAttributes(ctx context.Context, in *sqs.SetQueueAttributesInput) (*sqs.SetQueueAttributesOutput, error) {
	if in.QueueUrl != nil && in.Attributes == nil {
		return nil, sqsq.MissingParameter("Attributes")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	attrs, err := sqsq.ParseQueueAttributes(in.Attributes)
	if err != nil {
		return nil, err
	}
	if err := q.SetAttributes(ctx, attrs); err != nil {
		return nil, err
	}
	return &sqs.SetQueueAttributesOutput{}, nil
}

// PurgeQueue deletes every message of a queue; a second purge within 60 s
// of clock time fails with *types.PurgeQueueInProgress.
func (c *Client) PurgeQueue(ctx context.Context, params *sqs.PurgeQueueInput, optFns ...func(*sqs.Options)) (*sqs.PurgeQueueOutput, error) {
	return call(ctx, c, "PurgeQueue", params, (*Client).purgeQueue)
}

func (c *Client) purgeQueue(ctx context.Context, in *sqs.PurgeQueueInput) (*sqs.PurgeQueueOutput, error) {
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := q.Purge(ctx); err != nil {
		return nil, err
	}
	return &sqs.PurgeQueueOutput{}, nil
}

// TagQueue adds tags to a queue, replacing the values of existing keys.
// Tags is required and an empty map counts as missing (MissingParameter):
// the Query protocol cannot send an empty map, so there "no tags" is the
// absent parameter, and the JSON protocol gives the same request the same
// answer.
func (c *Client) TagQueue(ctx context.Context, params *sqs.TagQueueInput, optFns ...func(*sqs.Options)) (*sqs.TagQueueOutput, error) {
	return call(ctx, c, "TagQueue", params, (*Client).tagQueue)
}

func (c *Client) tagQueue(ctx context.Context, in *sqs.TagQueueInput) (*sqs.TagQueueOutput, error) {
	if in.QueueUrl != nil && len(in.Tags) == 0 {
		return nil, sqsq.MissingParameter("Tags")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := q.Tag(ctx, in.Tags); err != nil {
		return nil, err
	}
	return &sqs.TagQueueOutput{}, nil
}

// UntagQueue removes tags by key; unknown keys are ignored. TagKeys is
// required (the SDK's model says so): without it the call fails with
// MissingParameter. An empty list, or an empty key, fails with
// InvalidParameterValue "Tag keys must be between 1 and 128 characters in
// length.", AWS's answer to botocore's TagKeys=[] (getmoto/moto#1686): see
// [sqsq.Queue.Untag].
func (c *Client) UntagQueue(ctx context.Context, params *sqs.UntagQueueInput, optFns ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error) {
	return call(ctx, c, "UntagQueue", params, (*Client).untagQueue)
}

func (c *Client) untagQueue(ctx context.Context, in *sqs.UntagQueueInput) (*sqs.UntagQueueOutput, error) {
	if in.QueueUrl != nil && in.TagKeys == nil {
		return nil, sqsq.MissingParameter("TagKeys")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := q.Untag(ctx, in.TagKeys...); err != nil {
		return nil, err
	}
	return &sqs.UntagQueueOutput{}, nil
}

// ListQueueTags returns a queue's tags; Tags is nil when it has none, as
// AWS omits it.
func (c *Client) ListQueueTags(ctx context.Context, params *sqs.ListQueueTagsInput, optFns ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	return call(ctx, c, "ListQueueTags", params, (*Client).listQueueTags)
}

func (c *Client) listQueueTags(ctx context.Context, in *sqs.ListQueueTagsInput) (*sqs.ListQueueTagsOutput, error) {
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	tags, err := q.Tags(ctx)
	if err != nil {
		return nil, err
	}
	return &sqs.ListQueueTagsOutput{Tags: tags}, nil
}

// AddPermission adds a statement to the queue's Policy attribute (see
// [sqsq.Queue.AddPermission]). Policies are recorded, never enforced.
func (c *Client) AddPermission(ctx context.Context, params *sqs.AddPermissionInput, optFns ...func(*sqs.Options)) (*sqs.AddPermissionOutput, error) {
	return call(ctx, c, "AddPermission", params, (*Client).addPermission)
}

func (c *Client) addPermission(ctx context.Context, in *sqs.AddPermissionInput) (*sqs.AddPermissionOutput, error) {
	if in.QueueUrl != nil {
		switch {
		case in.Label == nil:
			return nil, sqsq.MissingParameter("Label")
		case in.AWSAccountIds == nil:
			return nil, sqsq.MissingParameter("AWSAccountIds")
		case in.Actions == nil:
			return nil, sqsq.MissingParameter("Actions")
		}
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := q.AddPermission(ctx, *in.Label, in.AWSAccountIds, in.Actions); err != nil {
		return nil, err
	}
	return &sqs.AddPermissionOutput{}, nil
}

// RemovePermission removes the Policy statement with the given label.
func (c *Client) RemovePermission(ctx context.Context, params *sqs.RemovePermissionInput, optFns ...func(*sqs.Options)) (*sqs.RemovePermissionOutput, error) {
	return call(ctx, c, "RemovePermission", params, (*Client).removePermission)
}

func (c *Client) removePermission(ctx context.Context, in *sqs.RemovePermissionInput) (*sqs.RemovePermissionOutput, error) {
	if in.QueueUrl != nil && in.Label == nil {
		return nil, sqsq.MissingParameter("Label")
	}
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	if err := q.RemovePermission(ctx, *in.Label); err != nil {
		return nil, err
	}
	return &sqs.RemovePermissionOutput{}, nil
}

// ListDeadLetterSourceQueues lists the URLs of the queues whose
// RedrivePolicy names this queue as their dead-letter queue, in name order.
// QueueUrls is nil when there are none. sqs.NewListDeadLetterSourceQueuesPaginator
// works over a Client.
func (c *Client) ListDeadLetterSourceQueues(ctx context.Context, params *sqs.ListDeadLetterSourceQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	return call(ctx, c, "ListDeadLetterSourceQueues", params, (*Client).listDeadLetterSourceQueues)
}

func (c *Client) listDeadLetterSourceQueues(ctx context.Context, in *sqs.ListDeadLetterSourceQueuesInput) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	q, err := c.queue(ctx, in.QueueUrl)
	if err != nil {
		return nil, err
	}
	res, err := q.ListDeadLetterSourceQueues(ctx, sqsq.ListDeadLetterSourceQueuesInput{
		MaxResults: maxResults(in.MaxResults),
		NextToken:  str(in.NextToken),
	})
	if err != nil {
		return nil, err
	}
	return &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: c.urls(ctx, res.QueueURLs), NextToken: optional(res.NextToken)}, nil
}
