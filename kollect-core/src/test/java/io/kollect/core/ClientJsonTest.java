package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class ClientJsonTest {

  private static final ObjectMapper JACKSON2 = new ObjectMapper();
  private final KubernetesSerialization serialization = new KubernetesSerialization();

  @Test
  void anObjectBecomesTheTreeOfTheJsonTheClientWouldSend() throws Exception {
    Object service = new ServiceBuilder().withNewMetadata().withName("web").endMetadata()
        .withNewSpec().addNewPort().withPort(80).withTargetPort(new IntOrString(8080))
        .endPort().endSpec().build();
    Object deployment = new DeploymentBuilder().withNewMetadata().withName("api").endMetadata()
        .withNewSpec().withReplicas(3).withNewTemplate().withNewSpec().addNewContainer()
        .withName("c").withNewResources().addToLimits("cpu", new Quantity("500m"))
        .endResources().endContainer().endSpec().endTemplate().endSpec().build();
    for (Object o : new Object[] {service, deployment}) {
      JsonNode tree = ClientJson.toTree(serialization, o);
      assertThat(tree).isEqualTo(JACKSON2.readTree(serialization.asJson(o)));
    }
    JsonNode svc = ClientJson.toTree(serialization, service);
    assertThat(svc.at("/spec/ports/0/targetPort").isInt()).isTrue();
    assertThat(ClientJson.toTree(serialization, deployment)
        .at("/spec/template/spec/containers/0/resources/limits/cpu").textValue()).isEqualTo("500m");
  }

  @Test
  void everyJsonValueKeepsItsTypeBothWays() throws Exception {
    JsonNode record = JACKSON2.readTree("""
        {"s":"text","i":7,"l":12345678901,"big":123456789012345678901234567890,"d":1.5,
         "t":true,"f":false,"n":null,"a":[1,"two",[3],{"four":4}],"o":{},"e":[]}""");
    tools.jackson.databind.JsonNode client = ClientJson.toClient(record);
    assertThat(client.toString()).isEqualTo(record.toString());
    JsonNode back = ClientJson.fromClient(client);
    assertThat(back).isEqualTo(record);
    assertThat(back.get("i").isInt()).isTrue();
    assertThat(back.get("l").isLong()).isTrue();
    assertThat(back.get("big").isBigInteger()).isTrue();
    assertThat(back.get("d").isDouble()).isTrue();
    assertThat(ClientJson.fromClient(null)).isNull();
    assertThat(ClientJson.toClient(null)).isNull();
  }
}
