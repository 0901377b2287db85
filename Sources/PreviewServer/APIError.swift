import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewStore

/// Every error the API answers with: a ``PreviewError``, whose code decides the status
/// (``PreviewError/Code/httpStatus``, exhaustive: a new code does not compile until it has one), in
/// the one error object every interface returns (``ErrorEnvelope``), with the headers its answer
/// needs (`Retry-After` for our own faults and for throttling, `Allow`, `Content-Range`,
/// `WWW-Authenticate`).
package struct APIError: HTTPResponseError {
    package var error: PreviewError
    package var status: HTTPResponse.Status
    package var headers: HTTPFields

    package init(_ error: PreviewError, headers: HTTPFields = [:]) {
        self.error = error
        status = HTTPResponse.Status(code: error.code.httpStatus)
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        if error.code == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if headers[.retryAfter] == nil, let fault = StoreFault(error) { headers[.retryAfter] = "\(fault.retryAfterSeconds)" }
        self.headers = headers
    }

    package init(_ code: PreviewError.Code, _ message: String, headers: HTTPFields = [:]) {
        self.init(PreviewError(code, message), headers: headers)
    }

    /// A malformed request (a parameter out of range, a body that is not the JSON expected).
    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }

    /// A body past its route's limit (what `collect(upTo:)` throws): `413 file_too_large` with the
    /// error object, not NIO's empty answer.
    package init(_ error: NIOTooManyBytesError) {
        self.init(.fileTooLarge, "The request body is too large" + (error.maxBytes.map { ": this route takes at most \($0) bytes." } ?? "."))
    }

    /// An upload whose body arrives too slowly or takes too long: `timeout`, answered as the
    /// request's own timeout (408) rather than a render's (422).
    static func uploadTimedOut(_ message: String) -> APIError {
        var error = APIError(.timeout, message)
        error.status = .requestTimeout
        return error
    }

    /// A method the path does not answer, with the ones it does.
    static func methodNotAllowed(_ method: HTTPRequest.Method, allowed: [HTTPRequest.Method]) -> APIError {
        APIError(.methodNotAllowed, "\(method.rawValue) is not allowed here.", headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: try StableJSON.encode(ErrorEnvelope(error), keys: .snakeCase))))
    }
}

enum JSON {
    /// `value` as the API writes it: its keys in snake_case unless `keys` says otherwise.
    static func response(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:],
        keys: StableJSON.Keys = .snakeCase
    ) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try StableJSON.encode(value, keys: keys))))
    }

    /// A request's JSON body of at most `limit` bytes as `T` (keys in snake_case, times in ISO 8601); `400` with
    /// `expected` (the body's shape, said for people) when it is not one.
    static func body<T: Decodable>(_ type: T.Type, of request: Request, limit: Int, expected: String) async throws -> T {
        let body = try await request.body.collect(upTo: limit)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let value = try? decoder.decode(type, from: Data(body.readableBytesView)) else {
            throw APIError.badRequest("the body must be a JSON object: \(expected)")
        }
        return value
    }
}
