import Foundation
import HTTPTypes
import Hummingbird
import PreviewCore
import PreviewStore

/// A `PreviewError` as an HTTP response: the error object with the status for its code.
struct ErrorResponse: HTTPResponseError {
    var error: PreviewError
    var headers: HTTPFields = [:]

    init(_ error: PreviewError, headers: HTTPFields = [:]) {
        self.error = error
        self.headers = headers
    }

    init(_ code: PreviewError.Code, _ message: String) {
        self.init(PreviewError(code, message))
    }

    var status: HTTPResponse.Status { HTTPResponse.Status(code: error.code.httpStatus) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        if error.code == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if headers[.retryAfter] == nil, let fault = StoreFault(error) { headers[.retryAfter] = "\(fault.retryAfterSeconds)" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try StableJSON.encode(ErrorEnvelope(error)))))
    }
}

/// A 400 for a malformed request (not an input-file verdict).
struct BadRequest: HTTPResponseError {
    var message: String
    var status: HTTPResponse.Status { .badRequest }
    var headers: HTTPFields { [.contentType: "application/json; charset=utf-8"] }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ["error": ["code": "bad_request", "message": message]]
        return Response(status: .badRequest, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try StableJSON.encode(body))))
    }
}

/// A refusal of the request itself (its framing, size or pace), with its own status and code.
struct RequestRefusal: HTTPResponseError {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var extraHeaders: HTTPFields = [:]
    var headers: HTTPFields {
        var headers = extraHeaders
        headers[.contentType] = "application/json; charset=utf-8"
        return headers
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ["error": ["code": code, "message": message]]
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try StableJSON.encode(body))))
    }
}

/// A 405 for a method the path does not answer, with the methods it does.
struct MethodNotAllowed: HTTPResponseError {
    var allowed: [HTTPRequest.Method]
    var status: HTTPResponse.Status { .methodNotAllowed }
    var headers: HTTPFields {
        [.contentType: "application/json; charset=utf-8", .allow: allowed.map(\.rawValue).joined(separator: ", ")]
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ["error": ["code": "method_not_allowed", "message": "\(request.method.rawValue) is not allowed here."]]
        return Response(status: .methodNotAllowed, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try StableJSON.encode(body))))
    }
}

enum JSON {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try StableJSON.encode(value))))
    }
}
