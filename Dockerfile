# The Kollect operator image. Build the jar first, then the image:
#   ./mvnw -B -ntp -DskipTests -pl kollect-operator -am package
#   docker build -t kollect:0.1.0-SNAPSHOT .
FROM eclipse-temurin:17-jre

# A fixed numeric non-root user, matching runAsUser in deploy/manager/deployment.yaml.
RUN groupadd --system --gid 65532 kollect \
 && useradd --system --uid 65532 --gid kollect --home-dir /nonexistent --shell /usr/sbin/nologin kollect

COPY kollect-operator/target/kollect.jar /opt/kollect/kollect.jar

USER 65532:65532
EXPOSE 8080 8081
ENTRYPOINT ["java", "-jar", "/opt/kollect/kollect.jar"]
CMD ["run", "--leader-elect"]
