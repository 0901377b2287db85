#!/usr/bin/python3
"""Writes an OpenDocument text whose Basic macro runs when the document is opened (its OnLoad
event) and writes the file `docpreview-macro-ran` into $TMPDIR: a sample that must render without
the file ever appearing. Needs LibreOffice's Python bridge (python3-uno) and Debian's own python3.

    make-macro-document.py OUT.odt
"""
import subprocess
import sys
import tempfile
import time

import uno
from com.sun.star.beans import PropertyValue


def property_value(name, value):
    result = PropertyValue()
    result.Name, result.Value = name, value
    return result


def main(out):
    profile = tempfile.mkdtemp(prefix="docpreview-macro-")
    office = subprocess.Popen(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--invisible",
                               "--accept=pipe,name=docpreview-macro;urp;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(150):
        try:
            context = resolver.resolve("uno:pipe,name=docpreview-macro;urp;StarOffice.ComponentContext")
            break
        except Exception:
            time.sleep(0.2)
    desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
    document = desktop.loadComponentFromURL("private:factory/swriter", "_blank", 0, (property_value("Hidden", True),))
    document.Text.insertString(document.Text.End, "A document whose macro runs when it is opened.", False)
    libraries = document.BasicLibraries
    if not libraries.hasByName("Standard"):
        libraries.createLibrary("Standard")
    code = ('Sub Main\n  Open Environ("TMPDIR") & "/docpreview-macro-ran" For Output As #1\n'
            '  Print #1, "the macro ran"\n  Close #1\nEnd Sub\n')
    library = libraries.getByName("Standard")
    (library.replaceByName if library.hasByName("Module1") else library.insertByName)("Module1", code)
    event = (property_value("EventType", "Script"),
             property_value("Script", "vnd.sun.star.script:Standard.Module1.Main?language=Basic&location=document"))
    uno.invoke(document.Events, "replaceByName", ("OnLoad", uno.Any("[]com.sun.star.beans.PropertyValue", event)))
    document.storeToURL(uno.systemPathToFileUrl(out), ())
    document.close(True)
    try:
        desktop.terminate()
    except Exception:
        pass  # the bridge goes away with the office
    office.wait(timeout=30)
    subprocess.run(["rm", "-rf", profile])


if __name__ == "__main__":
    main(sys.argv[1])
