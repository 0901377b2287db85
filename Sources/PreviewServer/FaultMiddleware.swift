import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewStore

/// The outermost answer to whatever a route throws that is not already a response: a
/// ``PreviewError`` is its error object with its status; a full disk is
/// `507 storage_full`, an unreachable database `503 unavailable`, both with `Retry-After` and told
/// once per burst (``FaultBurst``); anything else is a `500 internal` with the error object, logged
/// with its cause and counted in `docpreview_internal_errors_total`. Never a bare 500.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let faults: FaultBurst

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as PreviewError {
            throw told(APIError(error), logger: context.logger)
        } catch let response as APIError {
            throw told(response, logger: context.logger)
        } catch let error as NIOTooManyBytesError {
            throw APIError(error)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            if let fault = StoreFault(error) {
                faults.record(fault, cause: error, logger: context.logger)
                throw APIError(fault.previewError)
            }
            ServiceMetrics.internalErrors()
            context.logger.error("request failed", metadata: ["preview.error": "\(error)", "preview.path": "\(request.uri.path)"])
            throw APIError(.internal, "Something went wrong on our side; it has been logged.")
        }
    }

    /// `response`, its store fault (if it answers one) counted and told.
    private func told(_ response: APIError, logger: Logger) -> APIError {
        if let fault = StoreFault(response.error) { faults.record(fault, cause: response.error, logger: logger) }
        return response
    }
}
