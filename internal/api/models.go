package api

import "github.com/bnpl-cli/bnpl/internal/wire"

// The models of the wire format are the wire package's, shared with the
// sandbox; the client names them here so that its callers need not know.

type (
	ApproveRequest        = wire.ApproveRequest
	Attachment            = wire.Attachment
	AttachmentUpload      = wire.AttachmentUpload
	AvailableProducts     = wire.AvailableProducts
	Buyer                 = wire.Buyer
	BuyerHistory          = wire.BuyerHistory
	Capture               = wire.Capture
	CaptureRequest        = wire.CaptureRequest
	ChallengeRequest      = wire.ChallengeRequest
	CheckoutRequest       = wire.CheckoutRequest
	CheckoutSession       = wire.CheckoutSession
	Configuration         = wire.Configuration
	Dispute               = wire.Dispute
	DisputeHistory        = wire.DisputeHistory
	DisputeItem           = wire.DisputeItem
	DisputeList           = wire.DisputeList
	DisputeNotification   = wire.DisputeNotification
	DisputeWebhook        = wire.DisputeWebhook
	DisputeWebhookRequest = wire.DisputeWebhookRequest
	Evidence              = wire.Evidence
	EvidenceRequest       = wire.EvidenceRequest
	Finding               = wire.Finding
	Merchant              = wire.Merchant
	MerchantURLs          = wire.MerchantURLs
	Order                 = wire.Order
	OrderHistoryEntry     = wire.OrderHistoryEntry
	OrderItem             = wire.OrderItem
	Pagination            = wire.Pagination
	Payment               = wire.Payment
	PaymentList           = wire.PaymentList
	PaymentNotification   = wire.PaymentNotification
	ProductLink           = wire.ProductLink
	ProductState          = wire.ProductState
	Products              = wire.Products
	Refund                = wire.Refund
	RefundRequest         = wire.RefundRequest
	ShippingAddress       = wire.ShippingAddress
	UpdatePaymentRequest  = wire.UpdatePaymentRequest
	Webhook               = wire.Webhook
	WebhookHeader         = wire.WebhookHeader
	WebhookRequest        = wire.WebhookRequest
)

const (
	ChallengeReasonAmount  = wire.ChallengeReasonAmount
	CodeInvalid            = wire.CodeInvalid
	CodeRequired           = wire.CodeRequired
	MaxApproveIDs          = wire.MaxApproveIDs
	MaxAttachmentBytes     = wire.MaxAttachmentBytes
	MaxDisputeWebhooks     = wire.MaxDisputeWebhooks
	MaxEvidenceAttachments = wire.MaxEvidenceAttachments
	MaxHeaderTitle         = wire.MaxHeaderTitle
	MaxHeaderValue         = wire.MaxHeaderValue
	MaxPageLimit           = wire.MaxPageLimit
	SessionCreated         = wire.SessionCreated
	SessionRejected        = wire.SessionRejected
	StatusAuthorized       = wire.StatusAuthorized
	StatusClosed           = wire.StatusClosed
	StatusCreated          = wire.StatusCreated
	StatusExpired          = wire.StatusExpired
	StatusRejected         = wire.StatusRejected
)

var (
	ChallengeReasons = wire.ChallengeReasons
	CheckoutLangs    = wire.CheckoutLangs
	DisputeReasons   = wire.DisputeReasons
	DisputeStatuses  = wire.DisputeStatuses
)
