import Foundation

/// Reading what a child process writes on a pipe.
enum ChildOutput {
    /// Everything written until the child closes its end, or nil past `seconds` or past `limit` bytes.
    static func read(_ descriptor: Int32, within seconds: Double, limit: Int) -> Data? {
        let deadline = Date().addingTimeInterval(seconds)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count <= limit {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptors, 1, Int32(min(left, 3600) * 1000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return data }
            data.append(contentsOf: buffer[0..<count])
        }
        return nil
    }
}
