/// The error object every interface returns: `{"error":{"code":"…","message":"…"}}`.
public struct ErrorEnvelope: Encodable, Sendable {
    public struct Body: Codable, Sendable, Equatable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Body

    public init(_ error: PreviewError) {
        self.error = Body(code: error.code.rawValue, message: error.message)
    }
}
