import HTTPTypes
import Hummingbird
import PreviewCore

/// Requires `Authorization: Bearer <token>` (or the `docpreview_token` cookie, for the page) on
/// every route but `/healthz`, compared in constant time.
struct AuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path != "/healthz" else { return try await next(request, context) }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let cookie = request.headers[.cookie].flatMap { header in
            header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("docpreview_token=") }.map { String($0.dropFirst("docpreview_token=".count)) }
        }
        guard let presented = bearer ?? cookie, Self.constantTimeEqual(Array(presented.utf8), token) else {
            throw ErrorResponse(.unauthorized, "A valid bearer token is required.")
        }
        return try await next(request, context)
    }

    /// Compares every byte whatever the first difference, so timing reveals nothing but the length.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
