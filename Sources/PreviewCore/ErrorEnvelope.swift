/// The error object every interface returns: `{"error":{"code":"…","message":"…"}}`.
public struct ErrorEnvelope: Encodable, Sendable {
    package struct Body: Codable, Sendable, Equatable {
        package var code: String
        package var message: String

        package init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    package var error: Body

    package init(_ error: PreviewError) {
        self.error = Body(code: error.code.rawValue, message: error.message)
    }
}
