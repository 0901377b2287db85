import Logging
import ServiceLifecycle

/// At a server's start, finishes the resumable uploads whose every byte arrived but that are no
/// document yet: a server stopped while it put them together (``DocumentService/finishReceivedUploads()``).
/// Then waits for the shutdown, as a service of the group.
package struct ReceivedUploadsFinisher: Service {
    let documents: DocumentService
    let logger: Logger

    package init(documents: DocumentService, logger: Logger) {
        self.documents = documents
        self.logger = logger
    }

    package func run() async throws {
        do {
            let finished = try await documents.finishReceivedUploads()
            if finished > 0 {
                logger.notice("finished uploads a stop had left complete but for their document", metadata: ["preview.uploads": "\(finished)"])
            }
        } catch {
            logger.error("could not finish the uploads a stop left", metadata: ["preview.error": "\(error)"])
        }
        try? await gracefulShutdown()
    }
}
